__global__ void edge_kernel_kernel(int N, const int* imageIn, int* imageOut) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y;
    if (j >= N) return;
    int sum = 0;
    for (int k = -1; k <= 1; ++k) {
        for (int l = -1; l <= 1; ++l) {
            int x = i + k, y = j + l;
            if (x >= 0 && x < N && y >= 0 && y < N) {
                int w = (k == 0 && l == 0) ? 8 : -1;
                sum += imageIn[(long)x * N + y] * w;
            }
        }
    }
    imageOut[(long)i * N + j] = max(min(sum, 255), 0);
}

void edge_kernel_gpu(int N, const int* imageIn, int* imageOut) {
    edge_kernel_kernel<<<dim3((N + 255) / 256, N), 256>>>(N, imageIn, imageOut);
}
