// Diagnosis: what a failure means and what to tell someone about it.
//
//   recognition  an error message, exception type or signal -> its Family
//   advice       per family: what it means, what to check first, what not to
//                conclude, and reruns that change one thing at a time
//   error chain  the first error is the cause; later ones are consequences
//   scrubbing    nothing personal (home paths, user and host names, e-mails,
//                secrets) leaves the machine in a report
//   report       a Markdown request for a targeted analysis
//   host         the environment of this machine, without LibTorch
//
// Everything here is torch-free (library casebook_core): the runner passes in
// the text and types it caught.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "casebook/backend.h"
#include "casebook/family.h"
#include "casebook/verdict.h"

namespace casebook {

// ---- Recognition ----------------------------------------------------------

// The family of an error, from its message (a what(), what_without_backtrace()
// or captured stderr) and, where known, the type of the exception that carried
// it, spelt as C++ demangles it ("c10::IndexError", "std::bad_alloc") or as
// Python prints it ("torch.OutOfMemoryError", "IndexError").
// When several patterns match, the most specific wins: a device-side assert
// whose kernel assertion text says "index out of bounds" is device_assert,
// "CUDA error: out of memory" is out_of_memory. The message outranks a generic
// type; an out-of-memory type outranks the message. Unknown text defaults to
// contract (the op rejected its inputs), also for non-torch exceptions.
Family classify_error(std::string_view message,
                      std::string_view exception_type = {});

// The family of a failure as Python printed it: `origin.first_error`,
// "IndexError: Target 4 is out of bounds.", "torch.OutOfMemoryError: CUDA
// out of memory. ...", or a bare "CUDA error: device-side assert
// triggered": the exception's type (a leading dotted name before ": ") and
// its message, read by classify_error, the one table of messages. kNone
// for an empty text.
Family classify_python_error(std::string_view first_error);

// A failure as a run showed it: what "the same failure" compares.
struct SeenFailure {
  Family family = Family::kNone;
  std::string message;  // the first error's text (its first line suffices)
  // A case of `steps`: the name of the step that raised it; empty where the
  // case has no steps or the run placed the error at none.
  std::string step;
};

// The one rule of "the same failure" (`capture` and `accept` judge a
// reproduction by it, `reduce` every candidate): `run` is the failure
// `origin` is when the family is the same and
// - where the family's message carries what the data did wrong
//   (index_out_of_range, contract: the offending index, the sizes), it has
//   the origin's integers in the same order (`Target 1000`);
// - where the failure is the outputs' (mismatch, nan_or_inf,
//   skipped_entries, and a failure of no family: "expected ..., got
//   outputs"), its first line is the origin's with the numbers left out
//   (the same output, the same kind of difference, against the same truth;
//   how many elements differ changes with the inputs);
// - where both name a step, the step is the same.
// `why`: the difference, when not.
bool same_failure(const SeenFailure& origin, const SeenFailure& run,
                  std::string* why);

// The same rule for a failure as Python printed it (`origin.first_error`,
// read by classify_python_error) and a run's first error `message`, of
// `family`.
bool same_failure(std::string_view first_error, Family family,
                  std::string_view message, std::string* why);

// Whether a run's failure (`family`, `message`, on `run_backend`) is the one
// `origin.first_error` records, seen on `origin_backend`: kSame by
// same_failure; kCpuForm where the origin is a GPU's device_assert, that GPU
// did not run here (`origin_backend_ran` false) and the run is the CPU's
// index_out_of_range (what the CPU kernels raise where the GPU's assert);
// else kDiffers, with the difference in `why`. `capture`, `accept` and
// `report` judge a reproduction by it.
enum class OriginMatch { kSame, kCpuForm, kDiffers };
OriginMatch match_origin(std::string_view first_error, Backend origin_backend,
                         bool origin_backend_ran, Backend run_backend,
                         Family family, std::string_view message,
                         std::string* why);

// The message without a c10 backtrace ("Exception raised from ...",
// "frame #0: ..."), trailing blank lines removed.
std::string_view strip_backtrace(std::string_view message);

// crash for every signal but SIGXCPU (the CPU-time limit: timeout).
Family classify_signal(int signal);

// "SIGSEGV, segmentation fault". SIGKILL says it may be the out-of-memory
// killer; an unknown number gets strsignal()'s text.
std::string describe_signal(int signal);

// A waitpid() status in words: "exited with status 3", "terminated by signal
// 11 (SIGSEGV, segmentation fault)", "... , core dumped".
std::string describe_wait_status(int status);

// ---- Advice ---------------------------------------------------------------

// One rerun that changes a single thing, and what its outcome tells.
struct RerunChange {
  std::string change;  // "CUDA_LAUNCH_BLOCKING=1"
  std::string
      reveals;  // "the kernel that failed, at the line that launched it"
};

struct FamilyAdvice {
  Family family = Family::kNone;
  std::string meaning;      // what the family means
  std::string first_check;  // the first thing to check
  std::string avoid;        // the conclusion to avoid; starts "Do not"
  std::vector<RerunChange> reruns;
};

// The advice for a family; every family has one (kNone too: "no error").
const FamilyAdvice& advice_for(Family family);

// The text `casebook explain FAMILY` prints.
std::string explain_family(Family family);

// ---- First error kept -----------------------------------------------------

struct ErrorChain {
  std::string first;                      // the cause, as far as we can tell
  std::vector<std::string> consequences;  // later errors, each once
};

// Errors in the order seen. The first non-empty one is the cause; later ones
// (a sticky "device-side assert triggered" after the kernel's assertion,
// the same error on the next CUDA call) are listed as possible consequences,
// identical repeats (backtraces and surrounding blanks ignored) once.
ErrorChain chain_errors(const std::vector<std::string>& errors_in_order);

// "first error: ...\npossible consequences (not causes):\n  - ...".
std::string render_error_chain(const ErrorChain& chain);

// ---- Scrubbing ------------------------------------------------------------

// What scrubbing replaced, by kind ("home folder", "user name", "secret"...),
// so that the person can check a report before sending it. A secret's value
// is never kept: only how many were replaced.
struct ScrubLog {
  // kind -> what was replaced (for secrets: "(value not shown)") -> times.
  std::map<std::string, std::map<std::string, int>> replaced;
  void add(std::string_view kind, std::string_view original);
  // One line per kind: "  user name (2): alice, bob"; empty when nothing.
  std::string summary() const;
};

struct ScrubContext {
  // Replaced by <user> where they identify someone (a path component,
  // user@host, a user field) and as a free word unless it is a common word
  // ("mark", "will": is_common_word in scrub_rules.cpp). Generic accounts
  // (root, ubuntu, runner, admin...) and names shorter than 2 are not names.
  std::string user_name;
  // Replaced by <host>: the full name wherever it stands as a name, its first
  // label where it identifies (user@host, a host field, a path component,
  // or anywhere when it holds a digit or '-').
  std::string host_name;
  std::string home_dir;  // replaced by <home> where a path starts and ends
  // Names learned from the text (learn_names): each is replaced as a path
  // component, user@host or field, and as a free word where it cannot be a
  // common word (a digit, '.', '_', '-' or a space in it: "alice.nguyen",
  // "John Smith"). A login (a home folder's or a user field's, in
  // learned_logins too) is a free word as user_name is.
  std::vector<std::string> learned_users;
  std::vector<std::string> learned_logins;
  std::vector<std::string> learned_hosts;
  // The organisation's domains ("acme.com"), learned from e-mail addresses
  // and dotted host names (not public ones: gmail.com, github.com...): every
  // host under them is replaced whole by <host>, a URL by <internal-url>.
  std::vector<std::string> learned_domains;
  // Where set, every replacement is recorded (not owned).
  ScrubLog* log = nullptr;
  // This process's: USER, LOGNAME or the password entry; gethostname();
  // HOME or the password entry.
  static ScrubContext from_process();
};

// Adds to `ctx` the names `text` gives away where they identify someone:
// the owner of a user folder (/home/x, /Users/x, C:\Users\First Last,
// \\server\home$\x, ~x) or of a scratch folder (/scratch/x), the user and
// host of user@host (of an e-mail, its local part, the name before
// "<address>" and the organisation's domain, not a role such as noreply),
// the value of a user or host field, the domain of a dotted host name
// (ctx.host_name's too). scrub() learns from its own text; a report learns from
// all its pieces first, so that a name given away in one place is replaced in
// every other.
void learn_names(std::string_view text, ScrubContext& ctx);
// The same for a (key, value) pair: the value of a key that names a user
// or a host ("user", "data.owner", "versions.hostname") is such a name.
void learn_names_from_entry(std::string_view key, std::string_view value,
                            ScrubContext& ctx);

// Replaces secrets by <redacted>, token by token: the values of keys whose
// whole name says secret (password, token, secret, api_key, auth,
// credentials, private_key, AccountKey, client-key-data, private_key_id,
// sessionid, csrftoken...) in key=value, key: value, "key": "value" and
// --key value forms (an unquoted value ends at its first blank or
// separator, a quoted one at its closing quote: never the rest of the
// line), the credential after an Authorization scheme (Bearer, Basic), every
// value of a Cookie or Set-Cookie header, URL credentials and the host they
// open (scheme://<redacted>@<host>), private key blocks, and formats that
// give themselves away (JWT, AIza..., ya29. and 1// tokens, Slack webhooks
// and xox tokens, ghp_, glpat-, hf_, sk-, npm_, sk_live_, whsec_, AKIA...,
// a 40-character AWS secret by its entropy or the word before it, an Azure
// storage key, a signed URL's sig= or X-Amz-Signature=); internal URLs (a
// single-label, .local, .internal, .corp..., *.corp.* or learned-domain
// host, or an IP) by <internal-url>; e-mail addresses by <email> (not a
// public forge's git@github.com); user folders (/home/x, /Users/x,
// C:\Users\First Last, \\server\home$\x, ~x/, /root, ctx.home_dir) by
// <home>; other users' scratch folders (/scratch/bob) by /scratch/<user>;
// card numbers, IBANs, US social security and phone numbers by <card>,
// <iban>, <ssn> and <phone>; IP addresses (not loopback) by <ip> (the user
// of user@<ip> by <user>); MAC addresses by <mac>; internal host names (and
// a UNC path's server) by <host>, whole; and the user's, the host's and the
// learned names as ScrubContext says.
std::string scrub(std::string_view text, const ScrubContext& ctx);

// Whether a key or variable name holds a secret, by its whole name: its last
// word says so ("HF_TOKEN", "apiKey", "client_secret", "DB_PASSWORD"), not
// any word in it ("token_type_ids", "max_tokens", "secret_name" are not).
bool is_secret_key(std::string_view key);

// A (key, value) pair scrubbed as a unit, the same in a report's tables and
// in its case file: a secret key's value is redacted whole; the value of a
// key that names a user or a host, when it is one name, becomes <user> or
// <host>; any other value is scrubbed. Names the pair gives away are
// learned first.
std::pair<std::string, std::string> scrub_entry(std::string_view key,
                                                std::string_view value,
                                                const ScrubContext& ctx);

// A case file's text scrubbed so that it still loads as the same case: every
// scalar is scrubbed as the (key, value) pair it is (scrub_entry, its key
// the dotted path "origin.data.user"), in place and requoted where its new
// text needs it; comments and what YAML cannot attribute to a scalar are
// scrubbed as free text, which never adds or removes a line. Text that is
// not YAML is scrubbed as free text.
std::string scrub_case_file(std::string_view text, const ScrubContext& ctx);
// Learns the names a case file gives away (learn_names_from_entry for each
// scalar, learn_names for its comments).
void learn_names_from_case_file(std::string_view text, ScrubContext& ctx);

// Scrubs, then cuts to at most max_chars bytes (on a UTF-8 boundary) plus a
// note of what was cut. Never the other way round: a secret cut in half would
// no longer look like one.
std::string scrub_then_truncate(std::string_view text, size_t max_chars,
                                const ScrubContext& ctx);

// The variables that say how CUDA, HIP and PyTorch were told to behave (names
// starting CUDA_, HIP_, AMD_, ROCR_, PYTORCH_, TORCH_), sorted, values
// scrubbed. Nothing else of the environment leaves the machine.
std::vector<std::pair<std::string, std::string>> allowed_environment(
    char** envp, const ScrubContext& ctx = ScrubContext::from_process());

// ---- Report ---------------------------------------------------------------

// What the choice of a report's subject reads of one run, in the run's
// order (case by case, each case's backends in order).
struct ReportCandidate {
  Verdict verdict = Verdict::kNotRun;
  bool backend_absent = false;  // a SKIP because the backend is not here
  bool expected_error = false;  // a PASS: it raised the error its case expects
  // An ERROR casebook gives without running the op (a neighbour whose
  // expected outcome cannot be derived): casebook's question to the case's
  // author, no run of the op to analyse. Never the subject; listed among
  // the other runs that failed.
  bool unjudged = false;
};

enum class SubjectReason {
  kFailed,      // the first run that FAILed, ERRORed, XPASSed or timed out
  kExpected,    // none did: the first expected error (or known bug, XFAIL)
  kPassed,      // every run that ran passed: the first of them
  kSkipped,     // nothing ran but runs the case itself skips: the first
  kNothingRan,  // every run was on an absent backend, or not run
};

struct ReportSubject {
  SubjectReason reason = SubjectReason::kNothingRan;
  size_t index = 0;  // into the candidates (not for kNothingRan)
  // The other runs that FAILed, ERRORed, XPASSed or timed out, in order.
  std::vector<size_t> other_failures;
};

// Which run a report is about. A SKIP of an absent backend and an unjudged
// ERROR are never the subject: on a machine without a GPU the report is
// about what ran.
ReportSubject choose_report_subject(const std::vector<ReportCandidate>& runs);

// "the first run that failed", "no run failed; the first that raised the
// error its case expects", ...: why the subject was chosen.
std::string_view subject_reason_text(SubjectReason reason);

struct ReportTensor {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  int64_t storage_offset = 0;
};

// A fixture the report's case file still names (one too large to inline):
// what the recipient needs besides the case file, and `--bundle` writes.
struct ReportFixture {
  std::string input;   // "input"
  std::string file;    // as the case names it, inside fixtures/
  std::string sha256;  // of the file's bytes
  uint64_t bytes = 0;
};

using ReportPairs = std::vector<std::pair<std::string, std::string>>;

struct ReportInput {
  std::string case_id;
  std::string op;
  std::string summary;
  std::string backend;  // "cuda"
  Family family = Family::kNone;
  std::vector<ReportTensor> inputs;
  // LibTorch, the backend's runtime, driver and device, the compute
  // capability where known, in that order; then the rest of the
  // environment (casebook, the OS, the allowed variables).
  ReportPairs versions;
  ReportPairs environment;
  std::string first_message;
  std::vector<std::string> consequences;
  ReportPairs args;  // the case's arguments, values as YAML writes them
  ReportPairs origin;
  // The case file of the chosen run, and the name "How to reproduce" runs
  // it under; how it came to be (as written, or written out).
  std::string case_file_text;
  std::string case_file_name = "case.yaml";
  std::string case_file_note;
  std::vector<ReportFixture> fixtures;
  std::string reproduce_command;
  // The same run as a Python script a PyTorch developer runs without
  // casebook (its inputs rebuilt, the op called as PyTorch spells it), and
  // the .npy files it loads besides the fixtures ("inputs/logits.npy"),
  // which `--bundle` writes. Empty: none made.
  std::string python_script;
  std::vector<std::string> python_files;
  // What was seen where: the same facts (PyTorch, backend, device, the
  // failure) as the case's origin records them (`seen`) and as this run has
  // them (`here`), key for key, shown side by side; and whether this run
  // reproduces the origin's failure (match_origin): "yes ...", "no: ...",
  // "not known: ...". Empty `seen`: the case has no origin.
  ReportPairs seen;
  ReportPairs here;
  std::string reproduced;
  // What PyTorch's issue template asks for, in `python -m
  // torch.utils.collect_env`'s words ("PyTorch version", "OS", ...).
  ReportPairs collect_env;
  // The run's verdict ("FAIL", "PASS", "SKIP", "XFAIL", ...): a PASS or SKIP
  // report says nothing fails; an XFAIL's reason is the author's expectation.
  std::string verdict = "FAIL";
  std::string expectation_reason;  // XFAIL: `xfail`; SKIP: why skipped
  bool expected_error = false;     // PASS: the run raised its expected error
  // Which run this is and why (subject_reason_text), and the other runs
  // that failed, a line each ("FAIL  case~rule[x]  cpu  mismatch: ...").
  std::string chosen_because;
  std::vector<std::string> other_failures;
};

// Every piece of `input` scrubbed, the names any piece gives away learned
// from all of them first; tables and the case file from the same (key,
// value) pairs (scrub_entry, scrub_case_file); long messages cut only after
// scrubbing. What a report shows and what `--bundle` writes.
ReportInput scrub_report(const ReportInput& input, const ScrubContext& ctx);

// The Markdown request a maintainer can paste into an issue, in this
// order: what was chosen and why; the operation; the inputs' shapes, dtypes
// and strides; the backend; the versions; the first relevant message and
// its possible consequences; the case's arguments; its origin; then the
// case file, its fixtures, how to reproduce (with casebook, then with
// PyTorch alone), the collect_env facts, the other failing runs and the
// rest of the environment. `scrubbed` must come from scrub_report.
std::string render_scrubbed_report(const ReportInput& scrubbed);

// render_scrubbed_report(scrub_report(input, ctx)).
std::string render_report_markdown(const ReportInput& input,
                                   const ScrubContext& ctx);

// ---- Host -----------------------------------------------------------------

// casebook's version and revision, how it was built, the OS (PRETTY_NAME of
// os-release) and the kernel (uname sysname, release, machine). Never the
// host name. The runner adds LibTorch's version and the GPU facts.
std::vector<std::pair<std::string, std::string>> host_environment();

// PRETTY_NAME from the text of an os-release file, unquoted; empty if absent.
std::string os_release_pretty_name(std::string_view os_release_text);

// The CPU's model name and flags, from the text of /proc/cpuinfo (the first
// processor's); empty when absent.
struct CpuInfo {
  std::string model;
  std::vector<std::string> flags;
};
CpuInfo parse_cpuinfo(std::string_view cpuinfo_text);
CpuInfo host_cpu();

// The version of the LibTorch this process has loaded, from the library
// itself, not its header (Debian's 1.13.1 says 1.13.0 in its header and in
// its file name): the Debian package that owns libtorch_cpu.so ("1.13.1",
// source "Debian package libtorch1.13"), else torch/version.py beside a
// wheel's lib/ without its local part ("2.13.0", source "pip: torch
// 2.13.0+cpu", the installer named by the wheel's dist-info), else the file
// name's version. Empty when no LibTorch is loaded.
std::string libtorch_library_version(std::string* source);

// What `when` conditions read (casebook/case.h): torch (the library's
// version, else `header_version`), cuda and hip (the versions a wheel's
// LibTorch was built with; absent otherwise), os, arch, cpu (its flags).
std::map<std::string, std::string> condition_facts(
    const std::string& header_version);

}  // namespace casebook
