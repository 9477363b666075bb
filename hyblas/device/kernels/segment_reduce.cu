// hyblas segmented reduction: out[s] = values[offsets[s]] op ... op values[offsets[s+1] - 1].
//
// The operator need not commute (a build's dup_op may be "first" or "second"), so every
// combination keeps the entries' order. A segment of at most 32 entries is folded by one lane,
// left to right. A longer one is folded by a whole warp in tiles: the 32 lanes read 32
// consecutive entries, fold them lane 0 <- lane 1, lanes 0-1 <- lanes 2-3, ... (shuffle-down by
// 1, 2, 4, ..., which combines neighbours left to right), and lane 0 appends the tile to its
// running result; each lane reads several tiles before folding them, so loads are in flight
// together. Segments longer than `long_segment` are left to hyblas_segment_reduce_block, which
// splits one segment into consecutive pieces, one per warp, and joins the pieces in order.
// Specialized by string.Template: ${V} the value type, ${OP} the operator's expression in x, y,
// ${S} the type the values are stored as (each is cast to ${V} as it is read).
// An empty segment gets the value 0 and found[s] = false.

typedef ${V} hyblas_v;
typedef ${S} hyblas_s;

__device__ __forceinline__ hyblas_v hyblas_op(hyblas_v x, hyblas_v y) { return (hyblas_v)(${OP}); }

#define HYBLAS_TILES 4

#define HYBLAS_FULL_WARP 0xffffffffu

// Shuffle any value of at most 8 bytes across the warp (the intrinsics have no 1- and 2-byte
// overloads): from `lane` + `offset` (DOWN) or from lane `offset`.
template <bool SMALL> struct hyblas_shuffle_word { typedef unsigned int type; };
template <> struct hyblas_shuffle_word<false> { typedef unsigned long long type; };

template <bool DOWN, typename V>
__device__ __forceinline__ V hyblas_shuffle(V v, int offset) {
    union { V value; typename hyblas_shuffle_word<sizeof(V) <= 4>::type word; } u;
    u.word = 0;
    u.value = v;
    u.word = DOWN ? __shfl_down_sync(HYBLAS_FULL_WARP, u.word, offset)
                  : __shfl_sync(HYBLAS_FULL_WARP, u.word, offset);
    return u.value;
}

// Append (value, found) to (acc, have): acc = acc op value.
__device__ __forceinline__ void hyblas_append(hyblas_v& acc, bool& have, hyblas_v value,
                                              bool found) {
    if (found) {
        acc = have ? hyblas_op(acc, value) : value;
        have = true;
    }
}

// Entries [begin, end) reduced in order by the 32 lanes of a warp (lane = 0..31), in tiles of
// 32; the result is valid in lane 0.
__device__ __forceinline__ void hyblas_warp_range(
    long long begin, long long end, int lane, const hyblas_s* __restrict__ values,
    hyblas_v& acc, bool& have)
{
    for (long long base = begin; base < end; base += 32LL * HYBLAS_TILES) {
        hyblas_v tile[HYBLAS_TILES];
        bool found[HYBLAS_TILES];
#pragma unroll
        for (int t = 0; t < HYBLAS_TILES; ++t) {
            const long long k = base + 32LL * t + lane;
            found[t] = k < end;
            if (found[t]) tile[t] = (hyblas_v)values[k];
        }
#pragma unroll
        for (int t = 0; t < HYBLAS_TILES; ++t) {
#pragma unroll
            for (int delta = 1; delta < 32; delta <<= 1) {
                const hyblas_v other = hyblas_shuffle<true>(tile[t], delta);
                const bool other_found = __shfl_down_sync(HYBLAS_FULL_WARP, (int)found[t],
                                                          delta) != 0;
                // lanes that are multiples of 2 * delta fold their right neighbour's run in
                if ((lane & (2 * delta - 1)) == 0 && lane + delta < 32 && other_found) {
                    tile[t] = found[t] ? hyblas_op(tile[t], other) : other;
                    found[t] = true;
                }
            }
            if (lane == 0) hyblas_append(acc, have, tile[t], found[t]);
        }
    }
}

// One warp per 32 consecutive segments: a lane folds its own segment if it has at most 32
// entries (HYBLAS_TILES loads in flight at a time), then the warp folds each longer one of
// its segments together, in tiles of 32 (at most long_segment entries: longer segments are
// skipped, for hyblas_segment_reduce_block). Short rows cost a lane, not a warp, and a long
// row does not hold a lane per entry of its neighbours, whatever the mix of lengths.
__global__ void hyblas_segment_reduce_warp(
    const long long nsegments,
    const long long long_segment,
    const long long* __restrict__ offsets,
    const hyblas_s* __restrict__ values,
    hyblas_v* __restrict__ out,
    bool* __restrict__ out_found)
{
    const long long first = (((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5) * 32;
    if (first >= nsegments) return;  // the whole warp
    const int lane = threadIdx.x & 31;
    const long long segment = first + lane;
    const bool mine = segment < nsegments;
    long long begin = 0;
    long long end = 0;
    if (mine) {
        begin = offsets[segment];
        end = offsets[segment + 1];
    }
    const long long length = end - begin;
    hyblas_v acc;
    bool have = false;
    if (length <= 32) {
        for (long long base = begin; base < end; base += HYBLAS_TILES) {
            hyblas_v v[HYBLAS_TILES];
#pragma unroll
            for (int t = 0; t < HYBLAS_TILES; ++t) {
                if (base + t < end) v[t] = (hyblas_v)values[base + t];
            }
#pragma unroll
            for (int t = 0; t < HYBLAS_TILES; ++t) hyblas_append(acc, have, v[t], base + t < end);
        }
    }
    unsigned wide = __ballot_sync(HYBLAS_FULL_WARP, length > 32 && length <= long_segment);
    while (wide != 0u) {
        const int owner = __ffs(wide) - 1;
        wide &= wide - 1u;
        const long long b = __shfl_sync(HYBLAS_FULL_WARP, begin, owner);
        const long long e = __shfl_sync(HYBLAS_FULL_WARP, end, owner);
        hyblas_v folded;
        bool folded_have = false;
        hyblas_warp_range(b, e, lane, values, folded, folded_have);
        folded = hyblas_shuffle<false>(folded, 0);  // valid in lane 0
        if (lane == owner) {
            acc = folded;
            have = true;  // the segment has entries
        }
    }
    if (mine && length <= long_segment) {
        out[segment] = have ? acc : (hyblas_v)0;
        out_found[segment] = have;
    }
}

// One block (32 warps at most) per listed long segment.
__global__ void hyblas_segment_reduce_block(
    const long long nlong,
    const long long* __restrict__ long_segments,
    const long long* __restrict__ offsets,
    const hyblas_s* __restrict__ values,
    hyblas_v* __restrict__ out,
    bool* __restrict__ out_found)
{
    __shared__ hyblas_v piece_acc[32];
    __shared__ bool piece_have[32];
    if (blockIdx.x >= nlong) return;
    const long long segment = long_segments[blockIdx.x];
    const long long begin = offsets[segment];
    const long long end = offsets[segment + 1];
    const int warp = threadIdx.x >> 5;
    const int lane = threadIdx.x & 31;
    const int warps = blockDim.x >> 5;
    // pieces of whole tiles, so every warp's loads stay aligned to the segment's start
    const long long tiles = (end - begin + 31) / 32;
    const long long piece = (tiles + warps - 1) / warps * 32;
    const long long piece_begin = begin + warp * piece;
    const long long piece_end = min(end, piece_begin + piece);
    hyblas_v acc;
    bool have = false;
    hyblas_warp_range(piece_begin, piece_end, lane, values, acc, have);
    if (lane == 0) {
        piece_acc[warp] = acc;
        piece_have[warp] = have;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        have = false;
        for (int w = 0; w < warps; ++w) hyblas_append(acc, have, piece_acc[w], piece_have[w]);
        out[segment] = have ? acc : (hyblas_v)0;
        out_found[segment] = have;
    }
}
