// ParEval problem 25_reduce_xor (serial prompt and a passing serial body), MIT License,
// Copyright (c) 2023-2024 Parallel Software and Systems Group, University of Maryland.
// github.com/parallelcodefoundry/ParEval. Kept for provenance; the task is task.toml.

/* Return the logical XOR reduction of the vector of bools x.
   Example:

   input: [false, false, false, true]
   output: true
*/
bool reduceLogicalXOR(std::vector<bool> const& x) {bool result = false;
  for (auto const& i : x) {
    result ^= i;
  }
  return result;
}
