__global__ void spmm_coo_kernel(int N, int nnza, int nnzx, const int* arow, const int* acol, const double* aval,
                                const int* xrow, const int* xcol, const double* xval, double* Y) {
    int a = blockIdx.x * blockDim.x + threadIdx.x;
    if (a >= nnza) return;
    for (int b = 0; b < nnzx; ++b) {
        if (acol[a] == xrow[b]) atomicAdd(&Y[(long)arow[a] * N + xcol[b]], aval[a] * xval[b]);
    }
}

void spmm_coo_gpu(int M, int K, int N, int nnza, int nnzx, const int* arow, const int* acol, const double* aval,
                  const int* xrow, const int* xcol, const double* xval, double* Y) {
    cudaMemset(Y, 0, (size_t)M * N * sizeof(double));
    spmm_coo_kernel<<<(nnza + 127) / 128, 128>>>(N, nnza, nnzx, arow, acol, aval, xrow, xcol, xval, Y);
}
