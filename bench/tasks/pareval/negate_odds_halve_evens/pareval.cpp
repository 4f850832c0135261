// ParEval problem 56_transform_negate_odds (serial prompt and a passing serial body), MIT License,
// Copyright (c) 2023-2024 Parallel Software and Systems Group, University of Maryland.
// github.com/parallelcodefoundry/ParEval. Kept for provenance; the task is task.toml.

/* In the vector x negate the odd values and divide the even values by 2.
   Example:

   input: [16, 11, 12, 14, 1, 0, 5]
   output: [8, -11, 6, 7, -1, 0, -5]
*/
void negateOddsAndHalveEvens(std::vector<int> &x) {for (int i = 0; i < x.size(); i++) {
        if (x[i] % 2 == 0) {
            x[i] /= 2;
        } else {
            x[i] = -x[i];
        }
    }
}
