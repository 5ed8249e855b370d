#ifndef SPINDLE_TAGLIB_H
#define SPINDLE_TAGLIB_H
/* A plain C face for the parts of TagLib 1.13 Spindle uses; the C++ lives in spindle_taglib.cpp. */
#ifdef __cplusplus
extern "C" {
#endif

typedef struct spn_tag_info {
    int length_ms;
    int bitrate_kbps;
    int sample_rate;
    int channels;
    int bits_per_sample;      /* 0 where the format has no fixed bit depth */
    char codec[32];           /* "flac", "mp3", "vorbis", "opus", "aac", "alac", ... */
    /* Tag properties as length-prefixed records (see SPN_RECORDS below); a multi-valued key repeats.
       malloc'd, may be NULL. */
    char *properties;
    unsigned long properties_size;
    char error[256];
} spn_tag_info;

/* SPN_RECORDS: a sequence of (key, value) pairs, each string as a 4-byte little-endian length followed by
   that many UTF-8 bytes. Lengths, not separators, delimit the strings, so a tag value holding any byte (control
   characters, NUL) cannot be mistaken for another key or value. */

/* Returns 1 on success, 0 on failure, 2 when TagLib does not read this format (no reader for the file
   type, or a variant it cannot parse, such as RF64): error filled on 0 and 2. Never throws. */
int spn_tags_read(const char *path, spn_tag_info *out);
/* As spn_tags_read, through a descriptor the caller holds (any offset; it is left open). `name` is the file's
   name, whose extension picks the format as a path's would; nothing is opened by it. */
int spn_tags_read_fd(int fd, const char *name, spn_tag_info *out);
void spn_tags_free(spn_tag_info *info);

/* Edits the tags of the file open as `fd` (read and write; left open) in place: Spindle calls it on a temporary
   copy it created and holds, then renames; `name` is the copy's name, whose extension picks the format, and is
   never opened, so swapping the copy's directory entry cannot redirect the write. `set` holds
   SPN_RECORDS (a key repeated for several values) that replace those keys; `unset` holds SPN_RECORDS whose
   keys are removed (their values are ignored). Only changed frames are rewritten: TagLib keeps frames whose
   properties are unchanged, and pictures and unknown frames are not properties. MP4 keys without an atom are
   written as ----:com.apple.iTunes: freeform items. `id3v2_version` 3 or 4 forces that version; 0 keeps the
   file's own. Returns 1 on success, 0 with `error` filled. Never throws. */
int spn_tags_write_fd(int fd, const char *name, const char *set, unsigned long set_size, const char *unset,
                      unsigned long unset_size, int id3v2_version, char *error, int error_size);

#ifdef __cplusplus
}
#endif
#endif
