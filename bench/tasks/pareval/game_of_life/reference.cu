__global__ void game_of_life_kernel(int N, const int* input, int* output) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y;
    if (j >= N) return;
    int count = 0;
    for (int x = -1; x <= 1; ++x) {
        for (int y = -1; y <= 1; ++y) {
            if (x == 0 && y == 0) continue;
            long r = (i + x + N) % N;
            long c = (j + y + N) % N;
            count += input[r * N + c];
        }
    }
    long k = (long)i * N + j;
    output[k] = input[k] == 1 ? (count == 2 || count == 3) : (count == 3);
}

void game_of_life_gpu(int N, const int* input, int* output) {
    game_of_life_kernel<<<dim3((N + 255) / 256, N), 256>>>(N, input, output);
}
