// sparsebench-engine-keeper STATUS_FD ENGINE [ARGS...]
//
// Starts an external engine for the harness and keeps every process the engine starts in
// view: the keeper is a child subreaper (PR_SET_CHILD_SUBREAPER), so whatever the engine's
// processes do (a new session, a double fork) each stays a descendant of the keeper until it
// ends, and the harness meters and stops the keeper's whole tree (harness/proc/process_tree.h).
// The engine inherits stdin, stdout and stderr and runs in a process group of its own. On
// STATUS_FD the keeper writes "engine PID", "exit STATUS" (the engine's wait status), from the
// engine's side of the fork "exec ERRNO" when it cannot be started, and "subreaper ERRNO" when
// it cannot be a subreaper here (then it starts nothing). It reaps every
// orphan handed to it, and on SIGTERM, or when the harness is gone, kills all its descendants
// and exits.
#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace {

volatile sig_atomic_t g_terminate = 0;  // set by the SIGTERM handler only

void OnTerminate(int) { g_terminate = 1; }

void WriteStatus(int fd, const char* what, long value) {
  char line[64];
  const int n = std::snprintf(line, sizeof line, "%s %ld\n", what, value);
  if (n > 0) (void)!write(fd, line, static_cast<size_t>(n));
}

// The parent of process `pid` from /proc/PID/stat; -1 when it is gone.
long ParentOf(const char* pid) {
  char path[300], text[512];
  std::snprintf(path, sizeof path, "/proc/%s/stat", pid);
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  const ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return -1;
  text[n] = '\0';
  const char* close_paren = std::strrchr(text, ')');
  if (close_paren == nullptr) return -1;
  char state = 0;
  long parent = -1;
  if (std::sscanf(close_paren + 1, " %c %ld", &state, &parent) != 2) return -1;
  return parent;
}

// Kills every descendant: as a subreaper the keeper becomes the parent of each orphan, so
// killing its children over and over until none is left reaches the whole tree.
void KillDescendants() {
  const long self = getpid();
  for (int round = 0; round < 500; ++round) {
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    DIR* proc = opendir("/proc");
    if (proc == nullptr) return;
    while (const dirent* entry = readdir(proc)) {
      if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
      if (ParentOf(entry->d_name) == self)
        kill(static_cast<pid_t>(std::atol(entry->d_name)), SIGKILL);
    }
    closedir(proc);
    usleep(10000);
    int status = 0;
    while (waitpid(-1, &status, WNOHANG) > 0) {
    }
    if (waitpid(-1, &status, WNOHANG) < 0 && errno == ECHILD) return;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s STATUS_FD ENGINE [ARGS...]\n", argv[0]);
    return 2;
  }
  const pid_t harness = getppid();
  const int status_fd = std::atoi(argv[1]);
  fcntl(status_fd, F_SETFD, FD_CLOEXEC);
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
    // Without it an engine's orphans would escape the harness's view: refuse to start one
    // (qemu's user-mode emulation is such a place; run a native keeper there).
    WriteStatus(status_fd, "subreaper", errno);
    return 1;
  }
  struct sigaction action {};
  action.sa_handler = OnTerminate;
  sigaction(SIGTERM, &action, nullptr);
  signal(SIGINT, SIG_IGN);  // the harness decides when the engine ends
  const pid_t engine = fork();
  if (engine < 0) {
    WriteStatus(status_fd, "exec", errno);
    return 1;
  }
  if (engine == 0) {
    setpgid(0, 0);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    execv(argv[2], argv + 2);
    WriteStatus(status_fd, "exec", errno);
    _exit(127);
  }
  WriteStatus(status_fd, "engine", engine);
  // The engine's stdin and stdout are the harness's socket: only the engine's processes hold
  // it, so the harness sees it close when they are gone.
  const int null = open("/dev/null", O_RDWR);
  dup2(null, 0);
  dup2(null, 1);
  const timespec tick{0, 20 * 1000 * 1000};
  while (g_terminate == 0 && getppid() == harness) {
    int status = 0;
    pid_t reaped = 0;
    while ((reaped = waitpid(-1, &status, WNOHANG)) > 0) {
      if (reaped == engine) WriteStatus(status_fd, "exit", status);
    }
    nanosleep(&tick, nullptr);
  }
  KillDescendants();
  return 0;
}
