#include <sys/types.h>
#include <mpg123.h>

/* mpg123.h renames these by macro depending on _FILE_OFFSET_BITS; macros do not import into Swift. */
static inline int spn_mpg123_open(mpg123_handle *h, const char *path) { return mpg123_open(h, path); }
static inline int64_t spn_mpg123_length(mpg123_handle *h) { return (int64_t)mpg123_length(h); }
static inline int spn_mpg123_param(mpg123_handle *h, enum mpg123_parms type, long value) {
    return mpg123_param2(h, type, value, 0.0);
}
/* Where the frame index ends after a scan: the offset of the last frame indexed (every `step`-th frame is),
 * or -1. mpg123_index is renamed by macro as well. */
static inline int64_t spn_mpg123_indexed_end(mpg123_handle *h, int64_t *step) {
    off_t *offsets = 0; off_t every = 0; size_t fill = 0;
    if (mpg123_index(h, &offsets, &every, &fill) != MPG123_OK || fill == 0 || !offsets) return -1;
    *step = (int64_t)every;
    return (int64_t)offsets[fill - 1];
}
/* The MPEG audio layer (1, 2 or 3) of the current frame, 0 when unknown; mpg123_info is a macro too. */
static inline int spn_mpg123_layer(mpg123_handle *h) {
    struct mpg123_frameinfo2 info;
    return mpg123_info2(h, &info) == MPG123_OK ? info.layer : 0;
}
/* The byte offset in the input the decoder has read to; mpg123_tell_stream is renamed by macro as well. */
static inline int64_t spn_mpg123_tell_stream(mpg123_handle *h) { return (int64_t)mpg123_tell_stream(h); }
