// hyblas element-wise over two bitmap vectors in one pass (hyblas/device/ewise.py): each
// position's value and presence. UNION (eWiseAdd): op(x, y) where both are present, the one
// present value otherwise; else (eWiseMult) op(x, y) where both are. An absent position's
// value is 0 (a placeholder). FULL: both are known to hold every position, so no flag is read
// (a ninth of what two float64 vectors take) and every position is present. Specialized by
// string.Template: ${X} / ${Y} the stored types, ${T} the operator's input type, ${Z} its
// output type, ${OP} its expression in x, y.

typedef ${X} hyblas_x;
typedef ${Y} hyblas_y;
typedef ${T} hyblas_t;
typedef ${Z} hyblas_z;

__device__ __forceinline__ hyblas_z hyblas_op(hyblas_t x, hyblas_t y) { return (hyblas_z)(${OP}); }

#define HYBLAS_EWISE_BATCH 4  // positions a thread loads before combining any

template <bool UNION, bool FULL>
__global__ void hyblas_ewise_bitmap(const long long n,
                                    const hyblas_x* __restrict__ x_values,
                                    const bool* __restrict__ x_present,
                                    const hyblas_y* __restrict__ y_values,
                                    const bool* __restrict__ y_present,
                                    hyblas_z* __restrict__ values,
                                    bool* __restrict__ present) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    // each round, a thread loads its HYBLAS_EWISE_BATCH positions' flags and values (whatever
    // the flags say: a bitmap's values array covers every position) before using any, so the
    // loads overlap instead of each value load waiting for its flags
    for (long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x; first < n;
         first += HYBLAS_EWISE_BATCH * stride) {
        hyblas_x xv[HYBLAS_EWISE_BATCH];
        hyblas_y yv[HYBLAS_EWISE_BATCH];
        bool in_x[HYBLAS_EWISE_BATCH];
        bool in_y[HYBLAS_EWISE_BATCH];
#pragma unroll
        for (int b = 0; b < HYBLAS_EWISE_BATCH; ++b) {
            const long long i = first + b * stride;
            if (i < n) {
                in_x[b] = FULL || x_present[i];
                in_y[b] = FULL || y_present[i];
                xv[b] = x_values[i];
                yv[b] = y_values[i];
            }
        }
#pragma unroll
        for (int b = 0; b < HYBLAS_EWISE_BATCH; ++b) {
            const long long i = first + b * stride;
            if (i >= n) break;
            hyblas_z value = (hyblas_z)0;
            if (in_x[b] && in_y[b]) {
                value = hyblas_op((hyblas_t)xv[b], (hyblas_t)yv[b]);
            } else if (UNION && in_x[b]) {
                value = (hyblas_z)xv[b];
            } else if (UNION && in_y[b]) {
                value = (hyblas_z)yv[b];
            }
            values[i] = value;
            present[i] = UNION ? (in_x[b] || in_y[b]) : (in_x[b] && in_y[b]);
        }
    }
}
