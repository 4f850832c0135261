// ParEval problem 57_transform_inverse_offset (serial prompt and a passing serial body), MIT License,
// Copyright (c) 2023-2024 Parallel Software and Systems Group, University of Maryland.
// github.com/parallelcodefoundry/ParEval. Kept for provenance; the task is task.toml.

/* Replace every element of the vector x with 1-1/x.
   Example:

   input: [2, 4, 1, 12, -2]
   output: [0.5, 0.75, 0, 0.91666666, 1.5]
*/
void oneMinusInverse(std::vector<double> &x) {for (auto &e : x) {
    e = 1.0 - 1.0 / e;
  }
}
