/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checked output files: the one path by which every file of a results
 * directory (and every file a command writes for the user) is written.
 *
 * outfile_open() returns an ordinary FILE whose every write(2) and whose
 * close(2) are checked by the stream itself, so fprintf, fputs, fclose and
 * the writers of tables that take a FILE need no checks of their own.  The
 * first failure of a file prints one line, "FILE: cannot write: ERROR", and
 * sets a sticky state for the whole process: a command whose output was not
 * written in full exits 2 (main), and a run is not marked complete
 * (results_finish).  What is written after a failure is discarded, and a
 * regular file opened "w" that was cut short is removed at close: half a
 * table never passes for the table.
 *
 * A process started by the experiment runner also sends that line to the
 * runner (OUTFILE_ENV_FD), whose own stderr the user sees: the driver's
 * stderr goes to the run's log, which may be on the disk that is full.
 */
#ifndef LAB_UTIL_OUTFILE_H
#define LAB_UTIL_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The runner's fd (a memfd) where a child writes its failure lines. */
#define OUTFILE_ENV_FD "MEMCG_LAB_WRITE_ERRORS_FD"

/*
 * Opens path for writing, mode "w" (truncate) or "a" (append).  Never NULL:
 * when the file cannot be opened that is the failure, reported as above,
 * and the stream returned discards what is written to it.
 */
FILE *outfile_open(const char *path, const char *mode);
/* fclose(); 0, or -1 with errno when anything written to f was lost: then
 * a file opened "w" is removed, and one opened "a" is cut back to what it
 * held before (half a table never passes for a table). */
int outfile_close(FILE *f);
/* A whole file written atomically (temp file, fsync, rename); 0, or -1
 * with errno. */
int outfile_write(const char *path, const char *data, size_t len);
/*
 * For a file another program writes on its stdout: perf exits 0 when it
 * could not write it (a full disk), so it writes into memory instead
 * (outfile_capture: a memfd, close-on-exec; -1 with errno) and
 * outfile_save_capture() writes what it wrote to path, checked, and closes
 * the memfd.  0 or -1 (reported).
 */
int outfile_capture(const char *name);
int outfile_save_capture(int fd, const char *path);
/* Records a failure found elsewhere ("PATH: cannot read: ERROR"): path,
 * verb, err an errno; prints the line when it is the first of the process. */
void outfile_failure(const char *path, const char *verb, int err);
/* Records a failure line another process printed (the runner's children). */
void outfile_failure_line(const char *line);
/* True once anything could not be written in full. */
bool outfile_failed(void);
/* The first failure, "PATH: cannot write: ERROR"; "" while none. */
const char *outfile_first_failure(void);
/* How many failures, of all files. */
int outfile_nfailures(void);
/* die("%s", err), except that a failure already printed is not printed
 * again: err is the "FILE: cannot write: ERROR" of a writer's caller. */
void outfile_die(const char *err) __attribute__((noreturn));

#endif
