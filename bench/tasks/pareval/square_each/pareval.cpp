// ParEval problem 58_transform_squaring (serial prompt and a passing serial body), MIT License,
// Copyright (c) 2023-2024 Parallel Software and Systems Group, University of Maryland.
// github.com/parallelcodefoundry/ParEval. Kept for provenance; the task is task.toml.

/* Replace every element of x with the square of its value.
   Example:

   input: [5, 1, 2, -4, 8]
   output: [25, 1, 4, 16, 64]
*/
void squareEach(std::vector<int> &x) {for (int i = 0; i < x.size(); i++) {
        x[i] = x[i] * x[i];
    }
}
