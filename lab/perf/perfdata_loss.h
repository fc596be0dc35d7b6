/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a perf.data says was lost or throttled while it was recorded: the
 * records perf report --stats counts (tools/perf/util/session.c,
 * machines__deliver_event()), read by one streaming pass over the data
 * section (pread in 1 MiB pieces: recordings of many GB are fine), without
 * parsing a sample.
 *
 * The layouts, from the kernel's include/uapi/linux/perf_event.h (enum
 * perf_event_type); each is followed by a sample_id trailer where the
 * events have sample_id_all, which the counts below never need:
 *   PERF_RECORD_LOST (2)          { header; u64 id; u64 lost; sample_id }
 *   PERF_RECORD_THROTTLE (5)      { header; u64 time; u64 id; u64 stream_id; sample_id }
 *   PERF_RECORD_UNTHROTTLE (6)    the same
 *   PERF_RECORD_AUX (11)          { header; u64 aux_offset; u64 aux_size; u64 flags; sample_id }
 *                                 flags: PERF_AUX_FLAG_TRUNCATED 0x01 (the
 *                                 AUX buffer had no room: data lost),
 *                                 PERF_AUX_FLAG_COLLISION 0x08 (Arm SPE:
 *                                 samples collided, some were dropped)
 *   PERF_RECORD_LOST_SAMPLES (13) { header; u64 lost; sample_id }
 *
 * Two views of one loss.  The kernel counts each record it could not put
 * into a full ring buffer twice (kernel/events/ring_buffer.c,
 * __perf_output_begin(): rb->lost and event->lost_samples): rb->lost goes
 * out as a PERF_RECORD_LOST with the next record that fits, so losses at
 * the end of a window may never be reported that way; event->lost_samples
 * (PERF_FORMAT_LOST, kernel 6.0+; PMU drivers such as AMD IBS add the
 * samples they drop) is read by perf record (6.0+) at its end and written
 * as PERF_RECORD_LOST_SAMPLES, one per event and CPU.  Adding the two would
 * count the same drops twice, so the share below takes the larger: perf's
 * own "Processed N samples and lost X%!" is lost_samples / (samples +
 * lost_samples) (session.c, perf_session__warn_about_errors()), and a file
 * of an older kernel or perf has LOST records only.  Both count records
 * of any type (a side-band event's COMM or MMAP too), not only samples.
 *
 * LOST_SAMPLES records with PERF_RECORD_MISC_LOST_SAMPLES_BPF (1 << 15 in
 * header.misc, tools/lib/perf/include/perf/event.h) are samples a perf
 * record --filter BPF program dropped on purpose: counted apart, as perf
 * does, never as lost.
 *
 * THROTTLE counts the times the kernel stopped an event for exceeding
 * perf_event_max_sample_rate (kernel/events/core.c,
 * __perf_event_account_interrupt()); how many samples it would have taken
 * meanwhile is not in the file, and nothing here guesses it.
 *
 * Refused with one line in err (naming the file, and the byte where it
 * applies): a file cut short (the data section ends past the file's end,
 * a record runs past the data section), a damaged record header,
 * compressed records (perf record -z: the lab has no Zstd decoder, and
 * counting the compressed frames would count nothing), pipe-mode and
 * big-endian files, perf.data directories (perf record --threads).
 */
#ifndef LAB_PERF_PERFDATA_LOSS_H
#define LAB_PERF_PERFDATA_LOSS_H

#include <stddef.h>
#include <stdint.h>

struct perfdata_loss {
	uint64_t records;		/* records in the data section (perf's TOTAL events) */
	uint64_t samples;		/* PERF_RECORD_SAMPLE records */
	uint64_t lost;			/* PERF_RECORD_LOST: the sum of their lost */
	uint64_t lost_records;		/* PERF_RECORD_LOST records */
	uint64_t lost_samples;		/* PERF_RECORD_LOST_SAMPLES: the sum of their lost (BPF drops apart) */
	uint64_t lost_samples_records;	/* PERF_RECORD_LOST_SAMPLES records (BPF drops apart) */
	uint64_t bpf_dropped;		/* ... with PERF_RECORD_MISC_LOST_SAMPLES_BPF: the sum */
	uint64_t throttle;		/* PERF_RECORD_THROTTLE records */
	uint64_t unthrottle;		/* PERF_RECORD_UNTHROTTLE records */
	uint64_t aux;			/* PERF_RECORD_AUX records */
	uint64_t aux_truncated;		/* ... with TRUNCATED or COLLISION set: AUX data lost */
	uint64_t aux_collision;		/* ... with COLLISION set */
	uint64_t data_offset, data_size;	/* the data section, from the header */
};

/*
 * Reads path's counts into out; 0, or -1 with one line in err (see
 * above).  Never a partial count: out is all zero after -1.
 */
int perfdata_loss_read(const char *path, struct perfdata_loss *out, char *err, size_t errlen);

/* The records lost, the larger of the two views above. */
uint64_t perfdata_loss_lost(const struct perfdata_loss *l);

/* perfdata_loss_lost() / (samples + it), in [0, 1]; -1 when both are 0. */
double perfdata_loss_share(const struct perfdata_loss *l);

/*
 * One line, without a newline, e.g.
 *   "793666 samples, 396980 lost (33.34%): 396980 in 4 LOST_SAMPLES
 *    records, 396433 in 1384 LOST records; throttled 52 times,
 *    unthrottled 53 times"
 * plus the AUX records that lost data and the BPF filter's drops where
 * there are any.  Truncated to n - 1 bytes.
 */
void perfdata_loss_line(const struct perfdata_loss *l, char *buf, size_t n);

/*
 * The TSV header and row (no newline): samples lost lost_records
 * lost_samples throttle unthrottle aux_truncated lost_pct, where lost is
 * PERF_RECORD_LOST's sum, lost_pct the share in percent with two decimals
 * ("-" when there was nothing to share), aux_truncated the AUX records
 * that lost data.
 */
extern const char perfdata_loss_tsv_header[];
void perfdata_loss_tsv_row(const struct perfdata_loss *l, char *buf, size_t n);

#endif
