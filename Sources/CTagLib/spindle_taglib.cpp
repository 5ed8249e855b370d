// TagLib 1.13 wrapper. Reads properties through File::properties() (the C binding has no property map),
// adds the MP4 freeform items and ASF attributes 1.13 leaves out, and names the codec from the concrete file type.
#include "spindle_taglib.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <exception>

#include <fcntl.h>
#include <unistd.h>

#include <fileref.h>
#include <tfile.h>
#include <tfilestream.h>
#include <tpropertymap.h>
#include <audioproperties.h>
#include <mpegfile.h>
#include <flacfile.h>
#include <flacproperties.h>
#include <vorbisfile.h>
#include <opusfile.h>
#include <oggflacfile.h>
#include <speexfile.h>
#include <mp4file.h>
#include <mp4properties.h>
#include <mp4tag.h>
#include <wavfile.h>
#include <wavproperties.h>
#include <aifffile.h>
#include <aiffproperties.h>
#include <wavpackfile.h>
#include <wavpackproperties.h>
#include <apefile.h>
#include <apeproperties.h>
#include <asffile.h>
#include <asfproperties.h>
#include <mpcfile.h>
#include <trueaudiofile.h>
#include <trueaudioproperties.h>
#include <id3v2tag.h>
#include <apetag.h>
#include <apeitem.h>
#include <id3v2header.h>
#include <map>
#include <vector>

namespace {

void setError(spn_tag_info *out, const std::string &message) {
    std::strncpy(out->error, message.c_str(), sizeof(out->error) - 1);
    out->error[sizeof(out->error) - 1] = 0;
}

void setCodec(spn_tag_info *out, const char *codec) {
    std::strncpy(out->codec, codec, sizeof(out->codec) - 1);
    out->codec[sizeof(out->codec) - 1] = 0;
}

void describeFile(TagLib::File *file, spn_tag_info *out) {
    if (auto *f = dynamic_cast<TagLib::MPEG::File *>(file)) {
        int layer = f->audioProperties() ? f->audioProperties()->layer() : 3;
        setCodec(out, layer == 1 ? "mp1" : layer == 2 ? "mp2" : "mp3");
        return;
    }
    if (auto *f = dynamic_cast<TagLib::FLAC::File *>(file)) {
        setCodec(out, "flac");
        if (f->audioProperties()) out->bits_per_sample = f->audioProperties()->bitsPerSample();
        return;
    }
    if (dynamic_cast<TagLib::Ogg::Vorbis::File *>(file)) { setCodec(out, "vorbis"); return; }
    if (dynamic_cast<TagLib::Ogg::Opus::File *>(file)) { setCodec(out, "opus"); return; }
    if (dynamic_cast<TagLib::Ogg::FLAC::File *>(file)) { setCodec(out, "flac"); return; }
    if (dynamic_cast<TagLib::Ogg::Speex::File *>(file)) { setCodec(out, "speex"); return; }
    if (auto *f = dynamic_cast<TagLib::MP4::File *>(file)) {
        auto *p = f->audioProperties();
        bool alac = p && p->codec() == TagLib::MP4::Properties::ALAC;
        setCodec(out, alac ? "alac" : "aac");
        if (p && alac) out->bits_per_sample = p->bitsPerSample();
        return;
    }
    if (auto *f = dynamic_cast<TagLib::RIFF::WAV::File *>(file)) {
        setCodec(out, "pcm");
        if (f->audioProperties()) out->bits_per_sample = f->audioProperties()->bitsPerSample();
        return;
    }
    if (auto *f = dynamic_cast<TagLib::RIFF::AIFF::File *>(file)) {
        setCodec(out, "pcm");
        if (f->audioProperties()) out->bits_per_sample = f->audioProperties()->bitsPerSample();
        return;
    }
    if (auto *f = dynamic_cast<TagLib::WavPack::File *>(file)) {
        setCodec(out, "wavpack");
        if (f->audioProperties()) out->bits_per_sample = f->audioProperties()->bitsPerSample();
        return;
    }
    if (auto *f = dynamic_cast<TagLib::APE::File *>(file)) {
        setCodec(out, "ape");
        if (f->audioProperties()) out->bits_per_sample = f->audioProperties()->bitsPerSample();
        return;
    }
    if (dynamic_cast<TagLib::ASF::File *>(file)) { setCodec(out, "wma"); return; }
    if (dynamic_cast<TagLib::MPC::File *>(file)) { setCodec(out, "musepack"); return; }
    if (auto *f = dynamic_cast<TagLib::TrueAudio::File *>(file)) {
        setCodec(out, "tta");
        if (f->audioProperties()) out->bits_per_sample = f->audioProperties()->bitsPerSample();
        return;
    }
    setCodec(out, "unknown");
}

void appendString(std::string &records, const std::string &text) {
    const uint32_t n = static_cast<uint32_t>(text.size());
    const unsigned char length[4] = {static_cast<unsigned char>(n), static_cast<unsigned char>(n >> 8),
                                     static_cast<unsigned char>(n >> 16), static_cast<unsigned char>(n >> 24)};
    records.append(reinterpret_cast<const char *>(length), 4);
    records += text;
}

void append(std::string &records, const TagLib::String &key, const TagLib::String &value) {
    appendString(records, key.to8Bit(true));
    appendString(records, value.to8Bit(true));
}

const TagLib::String mp4Freeform("----:com.apple.iTunes:");

/* The iTunes freeform item a property TagLib 1.13 has no MP4 atom for is stored as, where no spelling of it is
   there yet: the property's name, but "initialkey" for the key, as other taggers (Mp3tag, Picard, TagLib 2) name it. */
TagLib::String mp4ItemName(const TagLib::String &key) {
    return mp4Freeform + (key.upper() == "INITIALKEY" ? TagLib::String("initialkey") : key);
}

/* The property a freeform item TagLib leaves out stands for: its name upper-cased ("replaygain_track_gain", as
   beets and foobar2000 write it, is REPLAYGAIN_TRACK_GAIN); empty for other items. */
TagLib::String mp4PropertyName(const TagLib::String &item) {
    return item.startsWith(mp4Freeform) ? item.substr(mp4Freeform.size()).upper() : TagLib::String();
}

/* TagLib 1.13 maps few ASF (WMA) attributes to properties; taggers write the others under names of their own:
   the key as "WM/InitialKey" (Picard, Mp3tag; Navidrome reads it there), ReplayGain and other free-form fields
   under the property's name ("REPLAYGAIN_TRACK_GAIN": foobar2000, Picard). */
TagLib::String asfAttributeName(const TagLib::String &key) {
    if (key.upper() == "INITIALKEY") return "WM/InitialKey";
    return key;
}

/* The property an attribute TagLib leaves out stands for: INITIALKEY for "WM/InitialKey", ARTIST and COMMENT
   for copies of the content description's "Author" and "Description" (ffmpeg writes both), a name without a
   '/' upper-cased; empty for the rest (Windows Media's own "WM/..." bookkeeping). */
TagLib::String asfPropertyName(const TagLib::String &attribute) {
    const TagLib::String upper = attribute.upper();
    if (upper == "WM/INITIALKEY") return "INITIALKEY";
    if (upper == "AUTHOR") return "ARTIST";
    if (upper == "DESCRIPTION") return "COMMENT";
    if (upper.find("/") != -1) return TagLib::String();
    return upper;
}

/* Appends the items of a tag TagLib left out of `props` (its `unsupportedData`) that stand for a property
   (`propertyOf` their name), under that property's name, where `props` has none: the read side of
   `storeUnmapped`. `texts` gives an item's text values. */
template <typename Items, typename Texts>
void appendUnmapped(std::string &records, const TagLib::PropertyMap &props, const Items &items,
                    TagLib::String (*propertyOf)(const TagLib::String &), Texts texts) {
    const TagLib::StringList unsupported = props.unsupportedData();
    for (auto it = items.begin(); it != items.end(); ++it) {
        const TagLib::String key = propertyOf(it->first);
        if (key.isEmpty() || props.contains(key) || !unsupported.contains(it->first)) continue;
        const TagLib::StringList values = texts(it->second);
        for (auto v = values.begin(); v != values.end(); ++v) append(records, key, *v);
    }
}

}  // namespace

namespace {

/* A stream over a descriptor the caller already holds, named as the file it stands for so that TagLib picks the
   format by that name's extension, as it does for a path. TagLib never opens anything by name through it: a
   copy being edited cannot be swapped for a symlink between Spindle's checks and TagLib's writes. The stream
   owns a duplicate of the descriptor (closed with it, or at once when it cannot be opened); the caller's stays open. */
class DescriptorStream : public TagLib::FileStream {
public:
    DescriptorStream(int duplicate, const char *name, bool readOnly)
        : TagLib::FileStream(duplicate, readOnly), name_(name ? name : "") {
        if (!isOpen()) close(duplicate);   // an open stream closes it itself
    }
    TagLib::FileName name() const override { return name_.c_str(); }
private:
    std::string name_;
};

/* The duplicate a DescriptorStream takes, rewound: a duplicate shares the caller's file offset. */
int rewoundDuplicate(int fd) {
    const int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (copy >= 0) lseek(copy, 0, SEEK_SET);
    return copy;
}

int readStream(TagLib::FileStream &stream, spn_tag_info *out) {
    if (!stream.isOpen()) {
        setError(out, "TagLib cannot open the file");
        return 2;
    }
    TagLib::FileRef ref(&stream, true, TagLib::AudioProperties::Average);
    if (ref.isNull() || !ref.file()) {
        setError(out, "TagLib has no reader for this format");
        return 2;
    }
    if (!ref.file()->isValid()) {
        setError(out, "TagLib cannot read this file (unsupported format or corrupt header)");
        return 0;
    }
    TagLib::File *file = ref.file();
    describeFile(file, out);
    if (auto *p = file->audioProperties()) {
        out->length_ms = p->lengthInMilliseconds();
        out->bitrate_kbps = p->bitrate();
        out->sample_rate = p->sampleRate();
        out->channels = p->channels();
    }
    // TagLib accepts some non-audio files (it resyncs through junk looking for MPEG frames);
    // without a sample rate it found no audio stream.
    if (out->sample_rate <= 0) {
        setError(out, "TagLib found no audio stream in this file");
        return 2;
    }
    std::string records;
    TagLib::PropertyMap props = file->properties();
    // ID3v2's genre refinements "(RX)" and "(CR)" (v2.3; "RX" and "CR" in v2.4) mean Remix and Cover;
    // TagLib 1.13 hands them over as the bare codes.
    if (dynamic_cast<TagLib::MPEG::File *>(file) || dynamic_cast<TagLib::RIFF::WAV::File *>(file)
        || dynamic_cast<TagLib::RIFF::AIFF::File *>(file)) {
        auto genre = props.find("GENRE");
        if (genre != props.end()) {
            for (auto v = genre->second.begin(); v != genre->second.end(); ++v) {
                if (*v == "RX") *v = "Remix";
                else if (*v == "CR") *v = "Cover";
            }
        }
    }
    for (auto it = props.begin(); it != props.end(); ++it) {
        for (auto v = it->second.begin(); v != it->second.end(); ++v) append(records, it->first, *v);
    }
    // TagLib 1.13 maps only a few MP4 freeform items to properties; add the rest (ReplayGain, ...): the
    // ones it lists as unsupported. One it maps ("MusicBrainz Track Id" as MUSICBRAINZ_TRACKID) was also
    // read a second time under its upper-cased item name.
    if (auto *mp4 = dynamic_cast<TagLib::MP4::File *>(file)) {
        if (mp4->tag()) {
            appendUnmapped(records, props, mp4->tag()->itemMap(), mp4PropertyName,
                           [](const TagLib::MP4::Item &item) { return item.toStringList(); });
        }
    }
    if (auto *asf = dynamic_cast<TagLib::ASF::File *>(file)) {
        if (asf->tag()) {
            appendUnmapped(records, props, asf->tag()->attributeListMap(), asfPropertyName,
                           [](const TagLib::ASF::AttributeList &attributes) {
                               TagLib::StringList texts;
                               for (auto a = attributes.begin(); a != attributes.end(); ++a) {
                                   if (a->type() == TagLib::ASF::Attribute::UnicodeType && !a->toString().isEmpty()) {
                                       texts.append(a->toString());
                                   }
                               }
                               return texts;
                           });
        }
    }
    // TagLib 1.13 reads only ID3 tags in TTA files, but FFmpeg and foobar2000 put an APEv2 tag at the end
    // (before an ID3v1 tag, if any): its fields count where the ID3 tags have none.
    if (auto *tta = dynamic_cast<TagLib::TrueAudio::File *>(file)) {
        // Only the last 160 bytes are searched (an APE footer, then maybe an ID3v1 tag): not the whole file.
        const long tail = std::max(0L, tta->length() - 160);
        tta->seek(tail);
        const int at = tta->readBlock(160).rfind("APETAGEX");
        if (at >= 0) {
            const TagLib::APE::Tag ape(tta, tail + at);
            const TagLib::PropertyMap fields = ape.properties();
            for (auto it = fields.begin(); it != fields.end(); ++it) {
                if (props.contains(it->first)) continue;
                for (auto v = it->second.begin(); v != it->second.end(); ++v) append(records, it->first, *v);
            }
        }
    }
    if (!records.empty()) {
        out->properties = static_cast<char *>(std::malloc(records.size()));
        if (!out->properties) {
            setError(out, "out of memory reading tags");
            return 0;
        }
        std::memcpy(out->properties, records.data(), records.size());
        out->properties_size = records.size();
    }
    return 1;
}

/* Runs a read with `out` cleared, turning any exception into a failure with its message: never throws. */
template <typename Read>
int guardedRead(spn_tag_info *out, Read read) {
    std::memset(out, 0, sizeof(*out));
    try {
        return read();
    } catch (const std::exception &e) {
        setError(out, std::string("TagLib failed: ") + e.what());
    } catch (...) {
        setError(out, "TagLib failed with an unknown exception");
    }
    return 0;
}

}  // namespace

extern "C" int spn_tags_read(const char *path, spn_tag_info *out) {
    return guardedRead(out, [&] {
        // Read-only: TagLib opens a file for writing whenever it may, and a reader holding it so looks to
        // other programs (and to a tag batch's check) like a copy still being written.
        TagLib::FileStream stream(path, true);
        return readStream(stream, out);
    });
}

extern "C" int spn_tags_read_fd(int fd, const char *name, spn_tag_info *out) {
    return guardedRead(out, [&] {
        const int duplicate = rewoundDuplicate(fd);
        if (duplicate < 0) {
            setError(out, "TagLib cannot open the file");
            return 2;
        }
        DescriptorStream stream(duplicate, name, true);
        return readStream(stream, out);
    });
}

extern "C" void spn_tags_free(spn_tag_info *info) {
    if (info && info->properties) {
        std::free(info->properties);
        info->properties = nullptr;
    }
}

namespace {

void writeError(char *error, int size, const std::string &message) {
    if (!error || size <= 0) return;
    std::strncpy(error, message.c_str(), size - 1);
    error[size - 1] = 0;
}

/* Reads SPN_RECORDS; false when a length runs past the end (the caller refuses the whole write). */
bool records(const char *data, unsigned long size, std::vector<std::pair<std::string, std::string>> &out) {
    unsigned long at = 0;
    auto next = [&](std::string &text) {
        if (size - at < 4) return false;
        const unsigned char *p = reinterpret_cast<const unsigned char *>(data + at);
        const unsigned long n = p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<unsigned long>(p[3]) << 24);
        at += 4;
        if (size - at < n) return false;
        text.assign(data + at, n);
        at += n;
        return true;
    };
    while (data && at < size) {
        std::string key, value;
        if (!next(key) || !next(value)) return false;
        out.emplace_back(std::move(key), std::move(value));
    }
    return true;
}

/* Writes the properties TagLib refused, and removes those asked, as a tag's own items: `propertyOf` tells the
   property an item TagLib leaves out (`untranslated`) stands for. Every item standing for one is replaced or
   removed, whatever its case or spelling ("replaygain_track_gain"), so the next read sees exactly what was
   written; an existing spelling is kept, else the key is stored as `nameFor` it. A stray copy of a property TagLib
   did write (ffmpeg's "title" attribute beside the WMA title) goes too: other readers would find the old value. */
template <typename Remove, typename Store>
void storeUnmapped(const TagLib::StringList &untranslated, const std::vector<std::string> &written,
                   const std::vector<std::string> &removals, const TagLib::PropertyMap &refused,
                   TagLib::String (*propertyOf)(const TagLib::String &), TagLib::String (*nameFor)(const TagLib::String &),
                   Remove remove, Store store) {
    auto spellings = [&](const TagLib::String &key) {
        std::vector<TagLib::String> names;
        const TagLib::String wanted = key.upper();
        for (auto it = untranslated.begin(); it != untranslated.end(); ++it) {
            if (propertyOf(*it) == wanted) names.push_back(*it);
        }
        return names;
    };
    for (auto &key : removals) {
        for (auto &name : spellings(TagLib::String(key, TagLib::String::UTF8))) remove(name);
    }
    for (auto &key : written) {
        const TagLib::String property(key, TagLib::String::UTF8);
        if (refused.contains(property)) continue;
        for (auto &name : spellings(property)) remove(name);
    }
    for (auto it = refused.begin(); it != refused.end(); ++it) {
        const auto names = spellings(it->first);
        for (auto &name : names) remove(name);
        store(names.empty() ? nameFor(it->first) : names.front(), it->second);
    }
}

}  // namespace

extern "C" int spn_tags_write_fd(int fd, const char *name, const char *set, unsigned long set_size, const char *unset,
                                 unsigned long unset_size, int id3v2_version, char *error, int error_size) {
    try {
        std::vector<std::pair<std::string, std::string>> setRecords, unsetRecords;
        if (!records(set, set_size, setRecords) || !records(unset, unset_size, unsetRecords)) {
            writeError(error, error_size, "malformed tag records");
            return 0;
        }
        const int duplicate = rewoundDuplicate(fd);
        if (duplicate < 0) {
            writeError(error, error_size, "TagLib cannot open this file for writing");
            return 0;
        }
        DescriptorStream stream(duplicate, name, false);
        if (!stream.isOpen() || stream.readOnly()) {
            writeError(error, error_size, "TagLib cannot open this file for writing");
            return 0;
        }
        TagLib::FileRef ref(&stream, false);
        if (ref.isNull() || !ref.file() || !ref.file()->isValid()) {
            writeError(error, error_size, "TagLib cannot open this file for writing");
            return 0;
        }
        TagLib::File *file = ref.file();
        TagLib::PropertyMap props = file->properties();
        std::map<std::string, TagLib::StringList> values;
        std::vector<std::string> order;
        for (auto &r : setRecords) {
            if (values.find(r.first) == values.end()) order.push_back(r.first);
            values[r.first].append(TagLib::String(r.second, TagLib::String::UTF8));
        }
        std::vector<std::string> removals;
        for (auto &r : unsetRecords) removals.push_back(r.first);
        for (auto &key : order) props[TagLib::String(key, TagLib::String::UTF8)] = values[key];
        for (auto &key : removals) props.erase(TagLib::String(key, TagLib::String::UTF8));

        // APE tags (WavPack, APE, Musepack) keep each item's key as first written ("title"); TagLib would
        // re-create edited items upper-cased. Remember the original spellings to write them back.
        TagLib::APE::Tag *ape = nullptr;
        if (auto *wv = dynamic_cast<TagLib::WavPack::File *>(file)) ape = wv->APETag(false);
        else if (auto *af = dynamic_cast<TagLib::APE::File *>(file)) ape = af->APETag(false);
        std::map<std::string, TagLib::String> apeKeys;
        if (ape) {
            const auto &items = ape->itemListMap();
            for (auto it = items.begin(); it != items.end(); ++it) apeKeys[it->first.upper().to8Bit(true)] = it->second.key();
        }

        auto *mp4 = dynamic_cast<TagLib::MP4::File *>(file);
        auto *asf = dynamic_cast<TagLib::ASF::File *>(file);
        const TagLib::StringList untranslated = props.unsupportedData();
        TagLib::PropertyMap refused = file->setProperties(props);
        if (ape) {
            for (auto &key : order) {
                auto found = apeKeys.find(TagLib::String(key, TagLib::String::UTF8).upper().to8Bit(true));
                if (found == apeKeys.end()) continue;
                ape->setItem(found->second, TagLib::APE::Item(found->second, values[key]));
            }
        }
        // Properties TagLib 1.13 cannot map (ReplayGain, the key) go to MP4 freeform items and ASF attributes.
        if (mp4 && mp4->tag()) {
            TagLib::MP4::Tag *tag = mp4->tag();
            storeUnmapped(untranslated, order, removals, refused, mp4PropertyName, mp4ItemName,
                          [tag](const TagLib::String &name) { tag->removeItem(name); },
                          [tag](const TagLib::String &name, const TagLib::StringList &values) {
                              tag->setItem(name, TagLib::MP4::Item(values));
                          });
            refused.clear();
        }
        if (asf && asf->tag()) {
            TagLib::ASF::Tag *tag = asf->tag();
            storeUnmapped(untranslated, order, removals, refused, asfPropertyName, asfAttributeName,
                          [tag](const TagLib::String &name) { tag->removeItem(name); },
                          [tag](const TagLib::String &name, const TagLib::StringList &values) {
                              TagLib::ASF::AttributeList attributes;
                              for (auto v = values.begin(); v != values.end(); ++v) attributes.append(TagLib::ASF::Attribute(*v));
                              tag->setAttribute(name, attributes);
                          });
            refused.clear();
        }
        refused.removeEmpty();
        if (!refused.isEmpty()) {
            std::string keys;
            for (auto it = refused.begin(); it != refused.end(); ++it) keys += (keys.empty() ? "" : ", ") + it->first.to8Bit(true);
            writeError(error, error_size, "this format cannot store: " + keys);
            return 0;
        }
        // The ID3v2 version asked for, or else the one the file has: TagLib would write 2.4, which some
        // players and Windows read badly, over the 2.3 most Windows taggers write.
        auto versionFor = [id3v2_version](bool has, TagLib::ID3v2::Tag *tag) {
            if (id3v2_version == 3) return TagLib::ID3v2::v3;
            if (id3v2_version == 0 && has && tag && tag->header()->majorVersion() == 3) return TagLib::ID3v2::v3;
            return TagLib::ID3v2::v4;
        };
        bool saved;
        if (auto *mpeg = dynamic_cast<TagLib::MPEG::File *>(file)) {
            saved = mpeg->save(TagLib::MPEG::File::AllTags, TagLib::File::StripNone,
                               versionFor(mpeg->hasID3v2Tag(), mpeg->ID3v2Tag()), TagLib::File::DoNotDuplicate);
        } else if (auto *wav = dynamic_cast<TagLib::RIFF::WAV::File *>(file)) {
            saved = wav->save(TagLib::RIFF::WAV::File::AllTags, TagLib::File::StripOthers,
                              versionFor(wav->hasID3v2Tag(), wav->ID3v2Tag()));
        } else if (auto *aiff = dynamic_cast<TagLib::RIFF::AIFF::File *>(file)) {
            saved = aiff->save(versionFor(aiff->hasID3v2Tag(), aiff->tag()));
        } else {
            saved = file->save();
        }
        if (!saved) {
            writeError(error, error_size, "TagLib could not save the file");
            return 0;
        }
        return 1;
    } catch (const std::exception &e) {
        writeError(error, error_size, std::string("TagLib failed: ") + e.what());
    } catch (...) {
        writeError(error, error_size, "TagLib failed with an unknown exception");
    }
    return 0;
}
