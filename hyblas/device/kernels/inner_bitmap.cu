// hyblas inner product of two bitmap vectors in one pass (hyblas/device/inner.py): the add
// monoid over the positions where both are present of x_i (mult) y_i. Each block folds its
// positions and writes one partial and whether it found any; the host folds the partials. No
// identity seeds a fold (the "any" monoid's would be taken for a value): a flag says whether a
// fold holds one. FULL: both are known to hold every position, so no flag is read.
// Specialized by string.Template: ${X} / ${Y} the stored types, ${T} the semiring's operand
// type, ${Z} its result type, ${MULT} / ${ADD} expressions in x, y.

typedef ${X} hyblas_x;
typedef ${Y} hyblas_y;
typedef ${T} hyblas_t;
typedef ${Z} hyblas_z;

__device__ __forceinline__ hyblas_z hyblas_mult(hyblas_t x, hyblas_t y) { return (hyblas_z)(${MULT}); }
__device__ __forceinline__ hyblas_z hyblas_add(hyblas_z x, hyblas_z y) { return (hyblas_z)(${ADD}); }

#define HYBLAS_INNER_THREADS 256  // THREADS in inner.py
#define HYBLAS_INNER_BATCH 4  // positions a thread loads before folding any

template <bool FULL>
__global__ void __launch_bounds__(HYBLAS_INNER_THREADS)
hyblas_inner_bitmap(const long long n,
                    const hyblas_x* __restrict__ x_values,
                    const bool* __restrict__ x_present,
                    const hyblas_y* __restrict__ y_values,
                    const bool* __restrict__ y_present,
                    hyblas_z* __restrict__ partial,
                    bool* __restrict__ partial_found) {
    // raw bytes: a __shared__ array of a type with a constructor (complex) may not be declared
    __shared__ __align__(16) unsigned char raw[HYBLAS_INNER_THREADS * sizeof(hyblas_z)];
    __shared__ bool found[HYBLAS_INNER_THREADS];
    hyblas_z* const fold = reinterpret_cast<hyblas_z*>(raw);
    hyblas_z acc;
    bool have = false;
    const long long stride = (long long)gridDim.x * blockDim.x;
    // each round, a thread loads its HYBLAS_INNER_BATCH positions' flags and values (whatever
    // the flags say: a bitmap's values array covers every position) before folding any, so
    // the loads overlap instead of each value load waiting for its flags
    for (long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x; first < n;
         first += HYBLAS_INNER_BATCH * stride) {
        hyblas_x xv[HYBLAS_INNER_BATCH];
        hyblas_y yv[HYBLAS_INNER_BATCH];
        bool both[HYBLAS_INNER_BATCH];
#pragma unroll
        for (int b = 0; b < HYBLAS_INNER_BATCH; ++b) {
            const long long i = first + b * stride;
            both[b] = false;
            if (i < n) {
                both[b] = FULL || (x_present[i] && y_present[i]);
                xv[b] = x_values[i];
                yv[b] = y_values[i];
            }
        }
#pragma unroll
        for (int b = 0; b < HYBLAS_INNER_BATCH; ++b) {
            if (both[b]) {
                const hyblas_z p = hyblas_mult((hyblas_t)xv[b], (hyblas_t)yv[b]);
                acc = have ? hyblas_add(acc, p) : p;
                have = true;
            }
        }
    }
    if (have) fold[threadIdx.x] = acc;
    found[threadIdx.x] = have;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half >>= 1) {
        if (threadIdx.x < half && found[threadIdx.x + half]) {
            const hyblas_z other = fold[threadIdx.x + half];
            fold[threadIdx.x] = found[threadIdx.x] ? hyblas_add(fold[threadIdx.x], other) : other;
            found[threadIdx.x] = true;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partial_found[blockIdx.x] = found[0];
        // a value too where none was found: the caller's fold reads every partial
        partial[blockIdx.x] = found[0] ? fold[0] : (hyblas_z)0;
    }
}
