// ParEval problem 34_scan_largest_contiguous_subarray_sum (serial prompt and a passing serial body), MIT License,
// Copyright (c) 2023-2024 Parallel Software and Systems Group, University of Maryland.
// github.com/parallelcodefoundry/ParEval. Kept for provenance; the task is task.toml.

/* Return the largest sum of any contiguous subarray in the vector x.
   i.e. if x=[−2, 1, −3, 4, −1, 2, 1, −5, 4] then [4, −1, 2, 1] is the contiguous
   subarray with the largest sum of 6.
   Example:

   input: [−2, 1, −3, 4, −1, 2, 1, −5, 4]
   output: 6
*/
int maximumSubarray(std::vector<int> const& x) {
    // ParEval has no passing serial body for this problem.
}
