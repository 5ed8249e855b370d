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
    /* Tag properties as "KEY\x1fVALUE\x1e" records; a multi-valued key repeats. malloc'd, may be NULL. */
    char *properties;
    char error[256];
} spn_tag_info;

/* Returns 1 on success, 0 on failure (error filled). Never throws. */
int spn_tags_read(const char *path, spn_tag_info *out);
void spn_tags_free(spn_tag_info *info);

#ifdef __cplusplus
}
#endif
#endif
