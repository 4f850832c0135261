// ParEval problem 27_reduce_average (serial prompt and a passing serial body), MIT License,
// Copyright (c) 2023-2024 Parallel Software and Systems Group, University of Maryland.
// github.com/parallelcodefoundry/ParEval. Kept for provenance; the task is task.toml.

/* Return the average of the vector x.
   Examples:
		
	 input: [1, 8, 4, 5, 1]
   output: 3.8

   input: [2, 2, 2, 3]
   output: 2.25
*/
double average(std::vector<double> const& x) {double sum = 0;
	for (double i : x) {
		sum += i;
	}
	return sum / x.size();
}
