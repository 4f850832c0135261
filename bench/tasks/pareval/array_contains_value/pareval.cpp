// ParEval problem 36_search_check_if_array_contains_value (serial prompt and a passing serial body), MIT License,
// Copyright (c) 2023-2024 Parallel Software and Systems Group, University of Maryland.
// github.com/parallelcodefoundry/ParEval. Kept for provenance; the task is task.toml.

/* Return true if the vector x contains the value `target`. Return false otherwise.
   Examples:

   input: x=[1, 8, 2, 6, 4, 6], target=3
   output: false
   
   input: x=[1, 8, 2, 6, 4, 6], target=8
   output: true
*/
bool contains(std::vector<int> const& x, int target) {return std::find(x.begin(), x.end(), target)!= x.end();
}
