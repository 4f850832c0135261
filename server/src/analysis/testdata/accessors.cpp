// Objects a loop reaches through read-only accessors and array-like class templates.
#include <cstddef>
#include <cstdint>

typedef int32_t Node;

// A flat array of T, like std::vector: operator[] and data() use the same pointer field.
template <typename T>
class flat_array {
 public:
  explicit flat_array(size_t n) : start_(new T[n]), end_(start_ + n) {}
  T& operator[](size_t i) { return start_[i]; }
  const T& operator[](size_t i) const { return start_[i]; }
  T* data() const { return start_; }
  size_t size() const { return end_ - start_; }

 private:
  T* start_;
  T* end_;
};

// operator[] reads a different field than data() returns: not a flat array.
template <typename T>
class two_buffers {
 public:
  T& operator[](size_t i) { return back_[i]; }
  T* data() const { return front_; }

 private:
  T* front_;
  T* back_;
};

template <typename T>
class Graph {
 public:
  int64_t num_nodes() const { return num_nodes_; }

 private:
  int64_t num_nodes_;
  T* index_;
};

void label_nodes(const Graph<Node>& g, flat_array<Node>& comp) {
  for (Node n = 0; n < g.num_nodes(); n++)  // expect: kind=map region=yes
    comp[n] = n;
}

float largest(const Graph<Node>& g, const flat_array<float>& scores) {
  float best = 0;
  for (Node n = 0; n < g.num_nodes(); n++)  // expect: kind=reduction region=yes
    if (scores[n] > best) best = scores[n];
  return best;
}

void scale(const Graph<Node>& g, flat_array<float>& scores, float by) {
  flat_array<float> copy(g.num_nodes());
  for (Node n = 0; n < g.num_nodes(); n++)  // expect: kind=map region=yes
    copy[n] = scores[n] * by;
}

void halve(const Graph<Node>& g, two_buffers<float>& b) {
  for (Node n = 0; n < g.num_nodes(); n++)  // expect: kind=map region=no
    b[n] = b[n] * 0.5f;
}
