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

// One element of an array of structs, at an index the loop does not change.
struct Chunk {
  double* alphas;
  double eigmin;
};
void report(const Chunk& c);
#define SMALLER(a, b) ((a < b) ? a : b)

void invert_all(Chunk* chunks, int nchunks, double* out, int n) {
  for (int cc = 0; cc < nchunks; ++cc) {  // expect: kind=sequential
    for (int ii = 0; ii < n; ++ii)  // expect: kind=map region=yes
      out[ii] = 1.0 / chunks[cc].alphas[ii];
    report(chunks[cc]);
  }
}

void minimum_each(Chunk* chunks, int nchunks, const double* d, int n) {
  for (int cc = 0; cc < nchunks; ++cc) {  // expect: kind=sequential
    for (int ii = 0; ii < n; ++ii)  // expect: kind=reduction region=yes
      chunks[cc].eigmin = SMALLER(chunks[cc].eigmin, d[ii]);
    report(chunks[cc]);
  }
}

// Two elements of one array would be one parameter: not passed by their fields.
void difference(const Chunk* chunks, int a, int b, double* out, int n) {
  for (int ii = 0; ii < n; ++ii)  // expect: kind=map region=no
    out[ii] = chunks[a].alphas[ii] - chunks[b].alphas[ii];
}

// Element accessors (LULESH's shape): `x(i)` is `m_x[i]`, so a loop writing `domain.xd(i)` writes
// its own element; two accessors of one field are one array.
#include <map>
#include <vector>
class Mesh {
 public:
  double& x(int idx) { return m_x[idx]; }
  double& xd(int idx) { return m_xd[idx]; }
  double& x_again(int idx) { return m_x[idx]; }
  double& shifted(int idx) { return m_x[idx + 1]; }
  double& keyed(int k) { return m_keyed[k]; }
  int numNode() const { return m_numNode; }

 private:
  std::vector<double> m_x;
  double* m_xd;
  std::map<int, double> m_keyed;
  int m_numNode;
};

void advance(Mesh& mesh, double dt) {
  for (int i = 0; i < mesh.numNode(); ++i)  // expect: kind=map region=yes
    mesh.x(i) += mesh.xd(i) * dt;
}

void shift_left(Mesh& mesh, int n) {
  for (int i = 0; i < n; ++i)  // expect: kind=sequential
    mesh.x(i) = mesh.x_again(i + 1);
}

void shift_through(Mesh& mesh, int n) {
  for (int i = 0; i < n; ++i)  // expect: kind=sequential
    mesh.shifted(i) = 0.0;
}

void clear_keys(Mesh& mesh, int n) {
  for (int i = 0; i < n; ++i)  // expect: kind=sequential
    mesh.keyed(i) = 0.0;
}
