__global__ void spmv_coo_scale(int M, double beta, double* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < M) y[i] *= beta;
}

__global__ void spmv_coo_kernel(int nnz, double alpha, const int* row, const int* col, const double* val,
                                const double* x, double* y) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < nnz) atomicAdd(&y[row[k]], alpha * val[k] * x[col[k]]);
}

void spmv_coo_gpu(int M, int N, int nnz, double alpha, const int* row, const int* col, const double* val,
                  const double* x, double beta, double* y) {
    spmv_coo_scale<<<(M + 255) / 256, 256>>>(M, beta, y);
    spmv_coo_kernel<<<(nnz + 255) / 256, 256>>>(nnz, alpha, row, col, val, x, y);
}
