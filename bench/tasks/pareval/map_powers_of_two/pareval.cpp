// ParEval problem 59_transform_map_function (serial prompt and a passing serial body), MIT License,
// Copyright (c) 2023-2024 Parallel Software and Systems Group, University of Maryland.
// github.com/parallelcodefoundry/ParEval. Kept for provenance; the task is task.toml.

bool isPowerOfTwo(int x) {
	return (x > 0) && !(x & (x - 1));
}

/* Apply the isPowerOfTwo function to every value in x and store the results in mask.
   Example:

   input: [8, 0, 9, 7, 15, 64, 3]
   output: [true, false, false, false, false, true, false]
*/
void mapPowersOfTwo(std::vector<int> const& x, std::vector<bool> &mask) {for (int i = 0; i < x.size(); i++) {
		mask[i] = isPowerOfTwo(x[i]);
	}
}
