// ParEval problem 22_histogram_count_quadrants (serial prompt and a passing serial body), MIT License,
// Copyright (c) 2023-2024 Parallel Software and Systems Group, University of Maryland.
// github.com/parallelcodefoundry/ParEval. Kept for provenance; the task is task.toml.

struct Point {
   double x, y;
};

/* Count the number of cartesian points in each quadrant. The vector points contains a list of `Point` objects.
   Store the counts in `bins`.
   Example:

   input: [{x=1.5, y=0.1}, {x=-3, y=1.1}, {x=5, y=9}, {x=1.5, y=-1}, {x=3, y=-7}, {x=0.1, y=2}]
   output: [3, 1, 0, 2]
*/
void countQuadrants(std::vector<Point> const& points, std::array<size_t, 4> &bins) {for (auto const& point : points) {
      if (point.x > 0 && point.y > 0) {
         bins[0]++;
      } else if (point.x < 0 && point.y > 0) {
         bins[1]++;
      } else if (point.x < 0 && point.y < 0) {
         bins[2]++;
      } else {
         bins[3]++;
      }
   }
}
