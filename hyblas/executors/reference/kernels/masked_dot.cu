// hyblas masked dot-product SpGEMM: for each allowed entry (i, j) of a mask, the add monoid
// over the k in both row i of A and row j of Bᵀ of A_ik (mult) B_kj; absent where no k meets.
// The shorter of the two rows is walked and each of its k binary-searched in the longer one,
// from where the last search ended (both rows are sorted). An entry whose shorter row has fewer
// than LONG_ENTRY indices (hyblas/executors/reference/masked_dot.py) gets one thread; a longer
// one a warp, its lanes taking every 32nd index of the shorter row, folded in lane order.
// Specialized by string.Template: ${T} the operand type, ${Z} the result type, ${MULT} / ${ADD}
// expressions in x, y; ${READS_X} / ${READS_Y} whether MULT names x / y (an operand it does
// not read is never loaded: its values pointer may be a placeholder); instantiated per index
// type I.

typedef ${T} hyblas_t;
typedef ${Z} hyblas_z;
#define HYBLAS_READS_X ${READS_X}
#define HYBLAS_READS_Y ${READS_Y}

__device__ __forceinline__ hyblas_z hyblas_mult(hyblas_t x, hyblas_t y) { return (hyblas_z)(${MULT}); }
__device__ __forceinline__ hyblas_z hyblas_add(hyblas_z x, hyblas_z y) { return (hyblas_z)(${ADD}); }

#define HYBLAS_DOT_THREADS 256  // THREADS in masked_dot.py

// Fold A_ik (mult) B_kj into (acc, have) for the indices s, s + step, ... < s_end of the
// shorter row, each searched in [lo, hi) of the longer row.
template <typename I>
__device__ __forceinline__ void hyblas_dot_walk(long long s, const long long s_end, const int step,
                                                long long lo, const long long hi,
                                                const I* __restrict__ s_idx,
                                                const I* __restrict__ l_idx,
                                                const hyblas_t* __restrict__ a_val,
                                                const hyblas_t* __restrict__ b_val,
                                                const bool short_is_a, hyblas_z& acc, bool& have) {
    for (; s < s_end && lo < hi; s += step) {
        const I k = s_idx[s];
        long long first = lo, last = hi;  // the first position in [lo, hi) holding >= k
        while (first < last) {
            const long long middle = (first + last) >> 1;
            if (l_idx[middle] < k) first = middle + 1; else last = middle;
        }
        lo = first;
        if (first < hi && l_idx[first] == k) {
            const hyblas_t x = HYBLAS_READS_X ? (short_is_a ? a_val[s] : a_val[first]) : hyblas_t();
            const hyblas_t y = HYBLAS_READS_Y ? (short_is_a ? b_val[first] : b_val[s]) : hyblas_t();
            const hyblas_z p = hyblas_mult(x, y);
            acc = have ? hyblas_add(acc, p) : p;
            have = true;
        }
    }
}

// The rows of entry e and which of them is the shorter.
struct hyblas_dot_rows {
    long long s, s_end, lo, hi;
    bool short_is_a;
};

__device__ __forceinline__ hyblas_dot_rows hyblas_rows_of(const long long e,
                                                          const long long* __restrict__ rows,
                                                          const long long* __restrict__ cols,
                                                          const long long* __restrict__ a_ptr,
                                                          const long long* __restrict__ b_ptr) {
    const long long i = rows[e], j = cols[e];
    const long long a0 = a_ptr[i], a1 = a_ptr[i + 1], b0 = b_ptr[j], b1 = b_ptr[j + 1];
    hyblas_dot_rows r;
    r.short_is_a = (a1 - a0) <= (b1 - b0);
    r.s = r.short_is_a ? a0 : b0;
    r.s_end = r.short_is_a ? a1 : b1;
    r.lo = r.short_is_a ? b0 : a0;
    r.hi = r.short_is_a ? b1 : a1;
    return r;
}

template <typename I>
__global__ void __launch_bounds__(HYBLAS_DOT_THREADS)
hyblas_masked_dot_thread(const long long count, const long long* __restrict__ which,
                         const long long* __restrict__ rows, const long long* __restrict__ cols,
                         const long long* __restrict__ a_ptr, const I* __restrict__ a_idx,
                         const hyblas_t* __restrict__ a_val, const long long* __restrict__ b_ptr,
                         const I* __restrict__ b_idx, const hyblas_t* __restrict__ b_val,
                         hyblas_z* __restrict__ out, bool* __restrict__ out_found) {
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= count) return;
    const long long e = which[t];
    const hyblas_dot_rows r = hyblas_rows_of(e, rows, cols, a_ptr, b_ptr);
    hyblas_z acc;
    bool have = false;
    hyblas_dot_walk<I>(r.s, r.s_end, 1, r.lo, r.hi, r.short_is_a ? a_idx : b_idx,
                       r.short_is_a ? b_idx : a_idx, a_val, b_val, r.short_is_a, acc, have);
    out_found[e] = have;
    if (have) out[e] = acc;
}

template <typename I>
__global__ void __launch_bounds__(HYBLAS_DOT_THREADS)
hyblas_masked_dot_warp(const long long count, const long long* __restrict__ which,
                       const long long* __restrict__ rows, const long long* __restrict__ cols,
                       const long long* __restrict__ a_ptr, const I* __restrict__ a_idx,
                       const hyblas_t* __restrict__ a_val, const long long* __restrict__ b_ptr,
                       const I* __restrict__ b_idx, const hyblas_t* __restrict__ b_val,
                       hyblas_z* __restrict__ out, bool* __restrict__ out_found) {
    // raw bytes: a __shared__ array of a type with a constructor (complex) may not be declared
    __shared__ __align__(16) unsigned char raw[HYBLAS_DOT_THREADS * sizeof(hyblas_z)];
    __shared__ bool found[HYBLAS_DOT_THREADS];
    hyblas_z* const fold = reinterpret_cast<hyblas_z*>(raw);
    const int lane = threadIdx.x & 31;
    const long long t = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (t >= count) return;  // the whole warp: t is the same for its lanes
    const long long e = which[t];
    const hyblas_dot_rows r = hyblas_rows_of(e, rows, cols, a_ptr, b_ptr);
    hyblas_z acc;
    bool have = false;
    hyblas_dot_walk<I>(r.s + lane, r.s_end, 32, r.lo, r.hi, r.short_is_a ? a_idx : b_idx,
                       r.short_is_a ? b_idx : a_idx, a_val, b_val, r.short_is_a, acc, have);
    if (have) fold[threadIdx.x] = acc;
    found[threadIdx.x] = have;
    __syncwarp();
    if (lane == 0) {
        const int base = threadIdx.x;
        hyblas_z total;
        bool any = false;
        for (int l = 0; l < 32; ++l) {
            if (found[base + l]) {
                total = any ? hyblas_add(total, fold[base + l]) : fold[base + l];
                any = true;
            }
        }
        out_found[e] = any;
        if (any) out[e] = total;
    }
}
