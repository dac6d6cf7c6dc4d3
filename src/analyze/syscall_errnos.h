/* Which failed syscalls are failures: the expected-error table.
 *
 * A program asks many questions whose "no" is an error code: is the file
 * there (ENOENT), does it carry an ACL (ENODATA), is there data to read yet
 * (EAGAIN), is this a terminal (ENOTTY).  Those are answers, not faults.  Only
 * errors that mean work was lost or refused can make a warning, and then by
 * the share of the process's calls that fail, never by their rate alone. */
#ifndef PERFREPORT_SYSCALL_ERRNOS_H
#define PERFREPORT_SYSCALL_ERRNOS_H
#include <stddef.h>

enum errno_verdict {
    ERRNO_EXPECTED,   /* how programs ask or wait: at most info */
    ERRNO_UNCLASSED,  /* neither: listed, at most info */
    ERRNO_LOST,       /* work was lost: I/O error, full disk, out of descriptors */
    ERRNO_REFUSED,    /* work was refused: a peer, a permission, a route */
};

/* One answer of the table for (syscall, errno) as the syscall collector
 * names them ("getxattr", "ENODATA"). */
struct errno_class {
    enum errno_verdict verdict;
    /* ERRNO_EXPECTED: why it is normal ("no extended attribute of that
     * name: ls asks for ACLs and labels"); ERRNO_LOST/REFUSED: what it
     * means and what to check; ERRNO_UNCLASSED: NULL.  Static text. */
    const char *why;
    /* ERRNO_LOST/REFUSED: the thresholds row that judges the share of the
     * process's calls failing this way; NULL otherwise. */
    const char *thr_id;
};

struct errno_class errno_classify(const char *syscall, const char *errno_name);
/* "expected", "unclassed", "lost work", "refused". */
const char *errno_verdict_name(enum errno_verdict v);
#endif
