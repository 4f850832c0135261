// ParEval problem 52_stencil_1d_jacobi_3-point_stencil (serial prompt and a passing serial body), MIT License,
// Copyright (c) 2023-2024 Parallel Software and Systems Group, University of Maryland.
// github.com/parallelcodefoundry/ParEval. Kept for provenance; the task is task.toml.

/* Compute one iteration of a 3-point 1D jacobi stencil on `input`. Store the results in `output`.
   Each element of `input` will be averaged with its two neighbors and stored in the corresponding element of `output`.
   i.e. output[i] = (input[i-1]+input[i]+input[i+1])/3
   Replace with 0 when reading past the boundaries of `input`.
   Example:

   input: [9, -6, -1, 2, 3]
   output: [1, 2/3, -5/3, 4/3, 5/3]
*/
void jacobi1D(std::vector<double> const& input, std::vector<double> &output) {// YOUR CODE HERE
    for (int i = 1; i < input.size() - 1; i++) {
        output[i] = (input[i - 1] + input[i] + input[i + 1]) / 3;
    }
}
