// ParEval problem 33_scan_reverse_prefix_sum (serial prompt and a passing serial body), MIT License,
// Copyright (c) 2023-2024 Parallel Software and Systems Group, University of Maryland.
// github.com/parallelcodefoundry/ParEval. Kept for provenance; the task is task.toml.

/* Compute the reverse prefix sum of the vector x into output.
   Examples:
   
   input: [1, 7, 4, 6, 6, 2]
   output: [2, 8, 14, 18, 25, 26]

   input: [3, 3, 7, 1, -2]
   output: [-2, -1, 6, 9, 12]
*/
void reversePrefixSum(std::vector<int> const& x, std::vector<int> &output) {
    // ParEval has no passing serial body for this problem.
}
