// hyblas: lock-free union-find over a CSR graph (hyblas/traversal/afforest.py), the
// ECL-CC / Afforest family. parent[v] <= v always: a root is hooked under a smaller vertex
// only (atomicCAS on the larger root), so every tree's root is its smallest vertex and the
// final compression leaves each vertex labelled with the smallest id of its component.
//
// Template parameters: P the parent type (int or long long), R the CSR row pointer type, C
// the column index type. Plain global loads and stores on `parent` race on purpose: a load
// sees the old or the new parent, both ancestors, and a store only ever moves a pointer to
// an ancestor (path halving); the hooks themselves are atomic.

#define HYBLAS_UF_HEAVY 32  // a vertex with more edges left than this goes to a thread block

template <typename P>
__device__ __forceinline__ P hyblas_uf_cas(P* address, P expected, P desired);

template <>
__device__ __forceinline__ int hyblas_uf_cas<int>(int* address, int expected, int desired) {
    return atomicCAS(address, expected, desired);
}

template <>
__device__ __forceinline__ long long hyblas_uf_cas<long long>(long long* address,
                                                              long long expected,
                                                              long long desired) {
    return (long long)atomicCAS((unsigned long long*)address, (unsigned long long)expected,
                                (unsigned long long)desired);
}

// The root of v, halving the path on the way (each visited vertex skips to its grandparent).
template <typename P>
__device__ __forceinline__ P hyblas_uf_find(P* parent, P v) {
    volatile P* links = parent;
    P current = links[v];
    if (current != v) {
        P previous = v, next;
        while (current > (next = links[current])) {
            links[previous] = next;
            previous = current;
            current = next;
        }
    }
    return current;
}

// Join the trees of a and b: the larger of the two roots goes under the smaller. A failed
// compare-and-swap means that vertex is no root any more: go on from its new parent.
template <typename P>
__device__ __forceinline__ void hyblas_uf_hook(P* parent, P a, P b) {
    while (a != b) {
        if (a < b) {
            const P t = a;
            a = b;
            b = t;
        }
        const P seen = hyblas_uf_cas(parent + a, a, b);
        if (seen == a) return;
        a = seen;
    }
}

template <typename P>
__device__ __forceinline__ void hyblas_uf_link(P* parent, P u, P v) {
    hyblas_uf_hook(parent, hyblas_uf_find(parent, u), hyblas_uf_find(parent, v));
}

// Afforest's sampling: every vertex linked to its first `neighbours` neighbours.
template <typename P, typename R, typename C>
__global__ void hyblas_uf_sample(long long n, const R* __restrict__ indptr,
                                 const C* __restrict__ indices, P* parent, int neighbours) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long u = (long long)blockIdx.x * blockDim.x + threadIdx.x; u < n; u += stride) {
        const long long begin = indptr[u];
        long long end = indptr[u + 1];
        if (end > begin + neighbours) end = begin + neighbours;
        for (long long e = begin; e < end; ++e) hyblas_uf_link(parent, (P)u, (P)indices[e]);
    }
}

// Every vertex pointed at its root; `labels` (if not null) gets the root as int64.
template <typename P>
__global__ void hyblas_uf_compress(long long n, P* parent, long long* labels) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        const P root = hyblas_uf_find(parent, (P)v);
        parent[v] = root;
        if (labels != nullptr) labels[v] = (long long)root;
    }
}

// The full pass: each vertex whose label is not the giant component's (`*giant`; -1 skips
// none) linked to its neighbours from the `first`-th on. A vertex with more than
// HYBLAS_UF_HEAVY of them is listed in `heavy` for hyblas_uf_link_heavy instead.
template <typename P, typename R, typename C>
__global__ void hyblas_uf_link_rows(long long n, const R* __restrict__ indptr,
                                    const C* __restrict__ indices, P* parent, int first,
                                    const P* __restrict__ giant, P* heavy,
                                    unsigned long long* heavy_count) {
    const P skip = *giant;
    volatile P* links = parent;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long u = (long long)blockIdx.x * blockDim.x + threadIdx.x; u < n; u += stride) {
        if (links[u] == skip) continue;  // labelled with the giant's root: joined to it already
        const long long begin = (long long)indptr[u] + first, end = indptr[u + 1];
        if (begin >= end) continue;
        if (end - begin > HYBLAS_UF_HEAVY) {
            heavy[atomicAdd(heavy_count, 1ULL)] = (P)u;
            continue;
        }
        for (long long e = begin; e < end; ++e) hyblas_uf_link(parent, (P)u, (P)indices[e]);
    }
}

// The listed heavy vertices, one thread block each (grid-stride over the list).
template <typename P, typename R, typename C>
__global__ void hyblas_uf_link_heavy(const R* __restrict__ indptr, const C* __restrict__ indices,
                                     P* parent, int first, const P* __restrict__ heavy,
                                     const unsigned long long* __restrict__ heavy_count) {
    const unsigned long long count = *heavy_count;
    for (unsigned long long k = blockIdx.x; k < count; k += gridDim.x) {
        const P u = heavy[k];
        const long long begin = (long long)indptr[u] + first, end = indptr[u + 1];
        for (long long e = begin + threadIdx.x; e < end; e += blockDim.x) {
            hyblas_uf_link(parent, u, (P)indices[e]);
        }
    }
}
