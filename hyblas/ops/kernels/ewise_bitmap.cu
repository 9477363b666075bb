// hyblas element-wise over two bitmap vectors in one pass (hyblas/ops/kernels/ewise.py): each
// position's value and presence. UNION (eWiseAdd): op(x, y) where both are present, the one
// present value otherwise; else (eWiseMult) op(x, y) where both are. An absent position's
// value is 0 (a placeholder). Specialized by string.Template: ${X} / ${Y} the stored types,
// ${T} the operator's input type, ${Z} its output type, ${OP} its expression in x, y.

typedef ${X} hyblas_x;
typedef ${Y} hyblas_y;
typedef ${T} hyblas_t;
typedef ${Z} hyblas_z;

__device__ __forceinline__ hyblas_z hyblas_op(hyblas_t x, hyblas_t y) { return (hyblas_z)(${OP}); }

template <bool UNION>
__global__ void hyblas_ewise_bitmap(const long long n,
                                    const hyblas_x* __restrict__ x_values,
                                    const bool* __restrict__ x_present,
                                    const hyblas_y* __restrict__ y_values,
                                    const bool* __restrict__ y_present,
                                    hyblas_z* __restrict__ values,
                                    bool* __restrict__ present) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const bool in_x = x_present[i];
        const bool in_y = y_present[i];
        hyblas_z value = (hyblas_z)0;
        if (in_x && in_y) {
            value = hyblas_op((hyblas_t)x_values[i], (hyblas_t)y_values[i]);
        } else if (UNION && in_x) {
            value = (hyblas_z)x_values[i];
        } else if (UNION && in_y) {
            value = (hyblas_z)y_values[i];
        }
        values[i] = value;
        present[i] = UNION ? (in_x || in_y) : (in_x && in_y);
    }
}
