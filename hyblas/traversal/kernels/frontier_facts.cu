// hyblas: a frontier's out-edges and its widest vertex in one pass, for propagate's test of
// whether the device loop takes the next rounds (hyblas/traversal/propagation.py, _entering).
// Specialized per CSR indptr type ${P} by string.Template.
//
// The frontier is `count` vertices ids[i] (sparse), or the vertices i < count with present[i].
// out (zeros at the launch): [0] += their out-edges, [1] = max with the widest one's.

typedef ${P} hyblas_p;

__global__ void hyblas_frontier_facts(int sparse, const long long* ids, const bool* present,
                                      long long count, const hyblas_p* indptr,
                                      unsigned long long* out) {
    unsigned long long edges = 0, widest = 0;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        if (!sparse && !present[i]) continue;
        const long long u = sparse ? ids[i] : i;
        const unsigned long long degree = (unsigned long long)(indptr[u + 1] - indptr[u]);
        edges += degree;
        widest = max(widest, degree);
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        edges += __shfl_down_sync(0xffffffffu, edges, offset);
        widest = max(widest, __shfl_down_sync(0xffffffffu, widest, offset));
    }
    if ((threadIdx.x & 31) == 0 && widest > 0) {  // a lane 0 with no edges adds nothing
        atomicAdd(&out[0], edges);
        atomicMax(&out[1], widest);
    }
}
