// Loops that must NOT be offloaded, each for a different reason.
#include <cstdio>
#include <vector>

struct Node {
    int value;
    Node* next;
};

// Loop-carried dependence: iteration i reads u[i-1], written by iteration i-1 (not an associative scan).
void recurrence(int n, float* u, const float* f) {
    for (int i = 1; i < n; ++i) {
        u[i] = 0.5f * u[i - 1] + f[i];
    }
}

// Anti-dependence: iteration i reads a[i+1], which iteration i+1 overwrites.
void shift_left(int n, float* a) {
    for (int i = 0; i < n - 1; ++i) {
        a[i] = a[i + 1];
    }
}

// Pointer chasing: the next address is only known after the previous iteration.
int list_sum(const Node* head) {
    int s = 0;
    while (head != nullptr) {
        s += head->value;
        head = head->next;
    }
    return s;
}

// I/O in the body.
void print_all(int n, const float* a) {
    for (int i = 0; i < n; ++i) {
        std::printf("%f\n", a[i]);
    }
}

// Data-dependent exit: runs until convergence.
double newton_sqrt(double x) {
    double r = x;
    do {
        r = 0.5 * (r + x / r);
    } while (r * r - x > 1e-12);
    return r;
}

// Tiny constant trip count: not hot.
void rgb_to_gray_weights(float* w) {
    for (int k = 0; k < 3; ++k) {
        w[k] = 1.0f / 3.0f;
    }
}

int main() {
    const int n = 1000;
    std::vector<float> u(n, 0.0f), f(n, 1.0f), w(3);
    recurrence(n, u.data(), f.data());
    shift_left(n, u.data());
    Node c{3, nullptr}, b{2, &c}, a{1, &b};
    rgb_to_gray_weights(w.data());
    print_all(3, w.data());
    std::printf("%d %f %f\n", list_sum(&a), newton_sqrt(2.0), u[n - 2]);
    return 0;
}
