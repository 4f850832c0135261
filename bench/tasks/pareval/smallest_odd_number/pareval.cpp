// ParEval problem 28_reduce_smallest_odd_number (serial prompt and a passing serial body), MIT License,
// Copyright (c) 2023-2024 Parallel Software and Systems Group, University of Maryland.
// github.com/parallelcodefoundry/ParEval. Kept for provenance; the task is task.toml.

/* Return the value of the smallest odd number in the vector x.
   Examples:

   input: [7, 9, 5, 2, 8, 16, 4, 1]
   output: 1

   input: [8, 36, 7, 2, 11]
   output: 7
*/
int smallestOdd(std::vector<int> const& x) {int smallest = x[0];
  for (int i = 1; i < x.size(); i++) {
    if (x[i] % 2 == 1 && x[i] < smallest) {
      smallest = x[i];
    }
  }
  return smallest;
}
