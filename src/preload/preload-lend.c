/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Lending for plain pthread mutexes: a waiter that is about to sleep on a
 * mutex lends its class to the owner (glibc's __data.__owner), through
 * libqos's override calls, as a qos_mutex_t waiter does (applied here
 * with CAP_SYS_NICE, through qosd without: preload-broker.c).
 *
 * Who ends a loan: the owner's unlock, right after glibc's. The unlock
 * wrapper looks at its loans only if the mutex showed waiters just before
 * (then glibc's unlock makes a system call anyway), so the lender marks
 * waiters first, as glibc's own lock does before sleeping, and records
 * the loan under table_lock only after checking, under that lock, that
 * the owner still holds the mutex with waiters marked. An unlock that ran
 * before that check left __owner changed; one that runs after finds the
 * record. One window remains: an unlock whose wrapper read the lock word
 * just before the waiters mark and released just after. The lender then
 * ends its own loans when its lock call returns (it was woken by that very
 * unlock): a loan never outlives its lender's wait.
 *
 * Chains: each waiter also records which mutex it waits on, so that a
 * lender whose owner is itself waiting lends on to that mutex's owner, up
 * to 8 threads as qos_mutex_t and qosd do. A lender reads another
 * thread's mutex only under table_lock while that thread's record stands:
 * a program cannot free a mutex a thread waits on, and the record goes
 * (under that lock) before the thread's lock call returns to it.
 *
 * Whether to lend is judged against the owner's own class, not against a
 * class another waiter's loan gave it: a loan's slot is taken, with the
 * owner's class as it was before any loan of ours, before the loan is
 * begun, and given back only once the loan has ended. A second waiter that
 * comes while the first's loan is being made (qosd has changed the owner
 * but not answered yet) lends too, and so holds the owner up after the
 * first gives up.
 *
 * The tables are small and fixed: no allocation of ours inside a lock call
 * (an allocator may itself lock mutexes), and a full table lends nothing
 * (or, for the waiting records, nothing along the chain). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/glibc-mutex.h"
#include "core/kernel-caps.h"
#include "lib/lib-lock.h"
#include "lib/override.h"
#include "preload/preload.h"
#include "lib/thread-id.h"

#define LOANS_MAX 128
#define WAITING_MAX 128
#define CHAIN_MAX 8 /* threads along a chain, the first owner included */
#define SIGNAL_WAITERS_MAX 8 /* waiters on one condition a signal weighs */

typedef enum LoanState {
        LOAN_FREE,
        LOAN_BEGINNING,         /* being begun by its lender; o not set yet */
        LOAN_ACTIVE,            /* o stands until the holder's unlock or the lender's wait ends it */
        LOAN_ENDING,            /* taken out by whoever ends it; o being ended */
} LoanState;

typedef struct Loan {
        const void *lock;       /* the mutex, as a key only: never read through */
        pid_t holder;           /* raised */
        pid_t lender;
        QClass holder_own;      /* the holder's class before any loan of ours */
        LoanState state;
        qos_override_t *o;
        bool brokered;          /* o is libqos.so's, held by qosd */
} Loan;

typedef struct Waiting {
        pid_t tid;              /* 0: slot free */
        const pthread_mutex_t *lock;
        const pthread_cond_t *cond; /* waits on cond, to take lock again; NULL: waits on lock */
} Waiting;

static Loan loans[LOANS_MAX];
static Waiting waiting[WAITING_MAX];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long n_lent; /* under table_lock; for QOS_PRELOAD_DEBUG */
/* Records of condition variable waits: written under table_lock, read
 * without it by every signal, which looks no further while it is 0. */
static unsigned n_cond_waiting;

/* gettid() is a system call; the slow paths need the TID more than once.
 * initial-exec: a library that is preloaded is in the static TLS block. */
static _Thread_local pid_t tid_cache __attribute__((tls_model("initial-exec")));
/* This thread may have loans in the table that nobody ended yet. */
static _Thread_local bool lent_pending __attribute__((tls_model("initial-exec")));
/* This thread is lending or ending: the locks it takes meanwhile (ours,
 * libqos's, sd-bus's) are passed straight to glibc. */
static _Thread_local bool in_lend __attribute__((tls_model("initial-exec")));
/* This thread has a record in waiting[]. */
static _Thread_local bool waiting_recorded __attribute__((tls_model("initial-exec")));

pid_t preload_self_tid(void) {
        if (__builtin_expect(tid_cache == 0, 0))
                tid_cache = gettid();
        return tid_cache;
}

static void table_enter(void) {
        real_pthread_mutex_lock()(&table_lock);
}

static void table_leave(void) {
        real_pthread_mutex_unlock()(&table_lock);
}

/* A loan of lender's class c on a thread of this process: applied at once
 * with CAP_SYS_NICE, else asked of qosd. */
static int loan_begin(pid_t lender, pid_t tid, QClass c, qos_override_t **ret, bool *brokered) {
        int r = thread_id_check_own(tid);
        if (r < 0)
                return r;
        *brokered = !kernel_caps()->privileged;
        if (*brokered)
                return preload_broker_begin(lender, tid, c, ret);
        lib_lock(LIB_LOCK_OVERRIDE);
        r = override_push_locked(tid, c, ret);
        lib_unlock(LIB_LOCK_OVERRIDE);
        if (r < 0)
                return r;
        (void) override_settle(tid);
        return 0;
}

static int loan_end(qos_override_t *o, bool brokered) {
        return brokered ? preload_broker_end(o) : override_end_direct(o);
}

/* Whether the lender's class is above the holder's own class: only
 * then is there anything to lend. An owner whose settings match no class
 * was set up by hand (or is real-time): nothing is known to be above it. */
static bool lend_decision(pid_t lender, QClass holder_own, QClass *ret) {
        lib_lock(LIB_LOCK_OVERRIDE);
        QClass mine = override_class_locked(lender);
        lib_unlock(LIB_LOCK_OVERRIDE);
        *ret = mine;
        return mine != QCLASS_UNSPECIFIED && holder_own != QCLASS_UNSPECIFIED && holder_own < mine;
}

/* Under table_lock. */
static const pthread_mutex_t *waiting_on_locked(pid_t tid) {
        for (size_t i = 0; i < WAITING_MAX; i++)
                if (waiting[i].tid == tid && !waiting[i].cond)
                        return waiting[i].lock;
        return NULL;
}

/* Under table_lock: a slot for a loan to holder, with the holder's own
 * class: the one any other loan of ours on it recorded (its settings may
 * show that loan now), else what the kernel says. NULL: no room. */
static Loan *loan_reserve_locked(const void *lock, pid_t holder, pid_t lender) {
        Loan *free_slot = NULL;
        QClass own = QCLASS_UNSPECIFIED;
        bool known = false;

        for (size_t i = 0; i < LOANS_MAX; i++) {
                Loan *l = &loans[i];
                if (l->state == LOAN_FREE) {
                        if (!free_slot)
                                free_slot = l;
                } else if (l->holder == holder && !known) {
                        own = l->holder_own;
                        known = true;
                }
        }
        if (!free_slot)
                return NULL;
        if (!known)
                own = override_kernel_class(holder);
        *free_slot = (Loan) { .lock = lock, .holder = holder, .lender = lender, .holder_own = own,
                              .state = LOAN_BEGINNING };
        return free_slot;
}

static void loan_release(Loan *l) {
        table_enter();
        *l = (Loan) {};
        table_leave();
}

/* End loans taken out of the table (state LOAN_ENDING), then give their
 * slots back: until then they still tell a new lender the holder's own
 * class. */
static void end_all(Loan **ended, size_t n, const char *by) {
        for (size_t i = 0; i < n; i++) {
                int r = loan_end(ended[i]->o, ended[i]->brokered);
                preload_log("loan end tid=%d to=%d by=%s: %s", (int) ended[i]->lender, (int) ended[i]->holder, by,
                            r < 0 ? strerror(-r) : "ended");
                loan_release(ended[i]);
        }
}

/* Under table_lock: whether m may be read. The caller's own mutex (via 0)
 * always; a mutex reached along a chain only while the thread that led
 * there (via) still waits on it. */
static bool readable_locked(pid_t via, const pthread_mutex_t *m) {
        return via == 0 || waiting_on_locked(via) == m;
}

static void waiting_set(pid_t self, const pthread_mutex_t *m, const pthread_cond_t *c) {
        table_enter();
        for (size_t i = 0; i < WAITING_MAX; i++)
                if (!waiting[i].tid) {
                        waiting[i] = (Waiting) { .tid = self, .lock = m, .cond = c };
                        waiting_recorded = true;
                        if (c)
                                __atomic_store_n(&n_cond_waiting, n_cond_waiting + 1, __ATOMIC_RELAXED);
                        break;
                }
        table_leave();
}

static void waiting_clear(pid_t self) {
        table_enter();
        for (size_t i = 0; i < WAITING_MAX; i++)
                if (waiting[i].tid == self) {
                        if (waiting[i].cond)
                                __atomic_store_n(&n_cond_waiting, n_cond_waiting - 1, __ATOMIC_RELAXED);
                        waiting[i] = (Waiting) {};
                }
        table_leave();
        waiting_recorded = false;
}

/* One loan: lender's class to owner, which holds m (reached through via's
 * wait, or the caller's own: via 0). True if the loan stands: then the
 * chain goes on past owner. */
static bool lend_one(pthread_mutex_t *m, pid_t owner, pid_t via, pid_t lender) {
        QClass mine = QCLASS_UNSPECIFIED;
        qos_override_t *o = NULL;
        bool brokered = false;
        Loan *slot = NULL;
        int r = 0;

        table_enter();
        bool marked = readable_locked(via, m) && glibc_mutex_mark_waiters(m, owner);
        if (marked)
                slot = loan_reserve_locked(m, owner, lender);
        table_leave();
        if (!marked)
                r = -EAGAIN; /* released meanwhile */
        else if (!slot)
                r = -ENOSPC;
        else if (!lend_decision(lender, slot->holder_own, &mine))
                r = -EALREADY; /* the owner is at our class or above on its own */
        else
                r = loan_begin(lender, owner, mine, &o, &brokered);
        if (r < 0) {
                if (slot)
                        loan_release(slot);
                preload_log("lend tid=%d to=%d: %s", (int) lender, (int) owner,
                            r == -EAGAIN ? "released meanwhile" : r == -EALREADY ? "not below us" : strerror(-r));
                return false;
        }
        table_enter();
        bool kept = readable_locked(via, m) && glibc_mutex_held_with_waiters(m, owner);
        slot->o = o;
        slot->brokered = brokered;
        slot->state = kept ? LOAN_ACTIVE : LOAN_ENDING;
        if (kept) {
                /* Only a lender's own wait ends its loans; a signaller's
                 * loan ends at its unlock. */
                if (lender == preload_self_tid())
                        lent_pending = true;
                n_lent++;
        }
        table_leave();
        /* Released meanwhile: the loan is over already. */
        if (!kept) {
                (void) loan_end(o, brokered);
                loan_release(slot);
        }
        preload_log("lend tid=%d to=%d class=%s%s: %s", (int) lender, (int) owner, qclass_to_string(mine),
                    via ? " (along the chain)" : lender == preload_self_tid() ? "" : " (waiting on a condition)",
                    kept ? "lent" : "released meanwhile");
        return kept;
}

void preload_lend_before_wait(pthread_mutex_t *m) {
        if (in_lend)
                return;
        pid_t self = preload_self_tid(), owner = glibc_mutex_owner(m), via = 0;

        if (owner <= 0 || owner == self)
                return;
        in_lend = true;
        waiting_set(self, m, NULL);
        /* Along the chain while each owner is lent to and waits itself; an
         * owner at our class on its own lent on when it began to wait. */
        for (int n = 1; lend_one(m, owner, via, self) && n < CHAIN_MAX; n++) {
                table_enter();
                const pthread_mutex_t *next = waiting_on_locked(owner);
                pid_t next_owner = next ? glibc_mutex_owner(next) : 0;
                table_leave();
                if (next_owner <= 0 || next_owner == self || next_owner == owner)
                        break; /* not waiting, or a deadlock of the program's own */
                via = owner;
                m = (pthread_mutex_t *) next;
                owner = next_owner;
        }
        in_lend = false;
}

void preload_cond_wait_begin(const pthread_cond_t *c, const pthread_mutex_t *m) {
        if (!in_lend && glibc_mutex_lendable(m))
                waiting_set(preload_self_tid(), m, c);
}

void preload_cond_wait_end(void) {
        if (waiting_recorded && !in_lend)
                waiting_clear(preload_self_tid());
}

void preload_lend_before_signal(const pthread_cond_t *c) {
        if (__builtin_expect(!__atomic_load_n(&n_cond_waiting, __ATOMIC_RELAXED), 1) || in_lend)
                return;
        pid_t self = preload_self_tid(), lender = 0, found[SIGNAL_WAITERS_MAX];
        pthread_mutex_t *m = NULL;
        QClass best = QCLASS_UNSPECIFIED;
        size_t n = 0;

        in_lend = true;
        /* A waiter's mutex is read while its record stands (it cannot be
         * destroyed while waited on); once found held by us, it stays
         * alive while we hold it. Every waiter on c waits with one mutex. */
        table_enter();
        for (size_t i = 0; i < WAITING_MAX && n < SIGNAL_WAITERS_MAX; i++) {
                const Waiting *w = &waiting[i];
                if (w->tid && w->cond == c && glibc_mutex_owner(w->lock) == self) {
                        found[n++] = w->tid;
                        m = (pthread_mutex_t *) w->lock;
                }
        }
        table_leave();
        /* signal() wakes one of them, and which is glibc's choice: the
         * highest class lends, for as long as we hold the mutex. */
        for (size_t i = 0; i < n; i++) {
                lib_lock(LIB_LOCK_OVERRIDE);
                QClass theirs = override_class_locked(found[i]);
                lib_unlock(LIB_LOCK_OVERRIDE);
                if (theirs > best) {
                        best = theirs;
                        lender = found[i];
                }
        }
        if (lender)
                (void) lend_one(m, self, 0, lender);
        in_lend = false;
}

/* Take the loans matching (lock, holder) or lender out of the table, then
 * end them without the lock. */
static void end_matching(const void *lock, pid_t holder, pid_t lender) {
        Loan *ended[LOANS_MAX];
        size_t n = 0;

        in_lend = true;
        table_enter();
        for (size_t i = 0; i < LOANS_MAX; i++) {
                Loan *l = &loans[i];
                if (l->state == LOAN_ACTIVE && (lender ? l->lender == lender : l->lock == lock && l->holder == holder)) {
                        l->state = LOAN_ENDING;
                        ended[n++] = l;
                }
        }
        table_leave();
        end_all(ended, n, lender ? "lender" : "holder");
        in_lend = false;
}

void preload_lend_end_held(const void *lock) {
        if (!in_lend)
                end_matching(lock, preload_self_tid(), 0);
}

void preload_lend_after_wait(void) {
        if (in_lend)
                return;
        if (waiting_recorded)
                waiting_clear(preload_self_tid());
        if (__builtin_expect(lent_pending, 0)) {
                lent_pending = false;
                end_matching(NULL, 0, preload_self_tid());
        }
}

unsigned long preload_lend_count(void) {
        table_enter();
        unsigned long n = n_lent;
        table_leave();
        return n;
}

/* fork(): the table lock is not left held in the child, and the child's
 * only thread has a new TID. Loans and waits in the tables are the
 * parent's threads': the child forgets them (their overrides are on threads
 * it does not have, and none of its threads waits). */
static void fork_prepare(void) {
        table_enter();
}

static void fork_parent(void) {
        table_leave();
}

static void fork_child(void) {
        memset(loans, 0, sizeof loans);
        memset(waiting, 0, sizeof waiting);
        n_cond_waiting = 0;
        waiting_recorded = false;
        tid_cache = 0;
        lent_pending = false;
        in_lend = false;
        table_leave();
}

void preload_lend_init(void) {
        const char *why, *v = secure_getenv("QOS_PRELOAD_LEND");
        mutex_fn lock = real_pthread_mutex_lock(), unlock = real_pthread_mutex_unlock();

        /* The fast paths jump to glibc directly from now on, lending or not. */
        if (lock && unlock) {
                preload_lending.lock = lock;
                preload_lending.unlock = unlock;
        }
        if (v && strcmp(v, "0") == 0) {
                preload_log("lending: off (QOS_PRELOAD_LEND=0)");
                return;
        }
        if (!glibc_mutex_layout_check(lock, unlock, &why)) {
                preload_log("lending: off, %s", why);
                return;
        }
        PreloadLending l = {
                .lock = lock,
                .unlock = unlock,
                .timedlock = real_pthread_mutex_timedlock(),
                .clocklock = real_pthread_mutex_clocklock(),
                .cond_wait = real_pthread_cond_wait(),
                .cond_timedwait = real_pthread_cond_timedwait(),
                .cond_clockwait = real_pthread_cond_clockwait(),
                .cond_signal = real_pthread_cond_signal(),
                .cond_broadcast = real_pthread_cond_broadcast(),
        };
        if (!l.timedlock || !l.clocklock || !l.cond_wait || !l.cond_timedwait || !l.cond_clockwait ||
            !l.cond_signal || !l.cond_broadcast) {
                preload_log("lending: off, the C library lacks a call it wraps");
                return;
        }
        if (pthread_atfork(fork_prepare, fork_parent, fork_child) != 0) {
                preload_log("lending: off, pthread_atfork failed");
                return;
        }
        preload_lending = l;
        __atomic_store_n(&preload_lending.on, true, __ATOMIC_RELEASE);
        preload_log(kernel_caps()->privileged ? "lending: on"
                                              : "lending: on, through qosd (no CAP_SYS_NICE)");
}
