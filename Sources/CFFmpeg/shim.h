#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswresample/swresample.h>
#include <libavutil/avutil.h>
#include <libavutil/opt.h>
#include <libavutil/channel_layout.h>
#include <errno.h>

/* These error macros are function-like and do not import into Swift. */
static const int SPN_AVERROR_EAGAIN = AVERROR(EAGAIN);
static const int SPN_AVERROR_EOF = AVERROR_EOF;
static const int64_t SPN_AV_NOPTS_VALUE = AV_NOPTS_VALUE;
