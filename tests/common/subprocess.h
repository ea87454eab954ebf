// Runs a program as a child process with a time limit and reports how it ended: exit status,
// or the signal that killed it, or that it ran past the limit (then it is killed with its
// whole process group, mpirun's ranks included). stdout and stderr are captured apart, and
// the child's peak resident memory comes from wait4's rusage.
//
// The tests of this folder need more than popen() gives: a signal must be told apart from
// an exit status (WIFSIGNALED), a hang must end the test instead of the CI job, and the
// environment must be set per run (the library reads AMGT once per process).
#pragma once

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

namespace amgt::test {

struct ProcResult
{
   bool        started     = false; // fork/exec worked (exit 127 from the child: exec failed)
   bool        exited      = false; // WIFEXITED
   int         exit_code   = -1;    // WEXITSTATUS when exited
   bool        signaled    = false; // WIFSIGNALED (a crash, or our kill after a timeout)
   int         term_signal = 0;
   bool        timed_out   = false;
   double      seconds     = 0.0;
   long        max_rss_kib = 0; // peak resident set of the child (the largest of its tree)
   std::string out;
   std::string err;

   std::string describe() const
   {
      std::string s;
      if (!started) return "did not start";
      if (timed_out) s += "TIMED OUT (killed), ";
      if (signaled) s += "killed by signal " + std::to_string(term_signal) + " (" + strsignal(term_signal) + "), ";
      if (exited) s += "exit " + std::to_string(exit_code) + ", ";
      s += std::to_string(seconds) + " s, max rss " + std::to_string(max_rss_kib) + " KiB";
      return s + "\n--- stdout ---\n" + out + "\n--- stderr ---\n" + err;
   }
};

struct ProcSpec
{
   std::vector<std::string>           argv;
   std::map<std::string, std::string> set_env;
   // every variable the library reads, so a child sees only what the test sets
   std::vector<std::string> unset_env = {"AMGT",        "AMGT_LEVELS", "AMGT_STATS",
                                         "AMGT_SPGEMM", "AMGT_SPMV",   "AMGT_TRACE",
                                         "AMGT_DEVICE_MEMORY_LIMIT",   "AMGT_DEVICE_CACHE",
                                         "AMGT_STRICT"};
   double                             timeout_s = 120.0;
};

inline ProcResult run_process(const ProcSpec& spec)
{
   ProcResult r;
   int        out_pipe[2], err_pipe[2];
   if (spec.argv.empty() || pipe(out_pipe) != 0) return r;
   if (pipe(err_pipe) != 0)
   {
      close(out_pipe[0]);
      close(out_pipe[1]);
      return r;
   }
   const auto  t0  = std::chrono::steady_clock::now();
   const pid_t pid = fork();
   if (pid < 0)
   {
      for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
      return r;
   }
   if (pid == 0)
   {
      // Own process group: a timeout kills mpirun and every rank it started, nothing else.
      setpgid(0, 0);
      dup2(out_pipe[1], STDOUT_FILENO);
      dup2(err_pipe[1], STDERR_FILENO);
      for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
      int devnull = open("/dev/null", O_RDONLY);
      if (devnull >= 0) dup2(devnull, STDIN_FILENO);
      for (const std::string& name : spec.unset_env) unsetenv(name.c_str());
      for (const auto& [name, value] : spec.set_env) setenv(name.c_str(), value.c_str(), 1);
      std::vector<char*> args;
      for (const std::string& a : spec.argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execvp(args[0], args.data());
      _exit(127);
   }
   r.started = true;
   setpgid(pid, pid); // also from the parent: no race with the kill below
   close(out_pipe[1]);
   close(err_pipe[1]);

   pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
   int    open_fds = 2;
   char   buf[65536];
   while (open_fds > 0)
   {
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double left = spec.timeout_s - elapsed;
      if (left <= 0)
      {
         r.timed_out = true;
         kill(-pid, SIGKILL);
         break;
      }
      const int ready = poll(fds, 2, static_cast<int>(left * 1000) + 1);
      if (ready < 0 && errno != EINTR) break;
      for (int k = 0; k < 2; ++k)
      {
         if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
         const ssize_t got = read(fds[k].fd, buf, sizeof buf);
         if (got > 0) { (k == 0 ? r.out : r.err).append(buf, static_cast<size_t>(got)); }
         else if (got == 0 || errno != EINTR)
         {
            close(fds[k].fd);
            fds[k].fd = -1;
            --open_fds;
         }
      }
   }
   for (const pollfd& p : fds)
      if (p.fd >= 0) close(p.fd);

   int    status = 0;
   rusage ru{};
   // The pipes may close before the process exits (or a grandchild may hold them): the
   // time limit applies to the wait as well.
   for (;;)
   {
      const pid_t w = wait4(pid, &status, WNOHANG, &ru);
      if (w == pid) break;
      if (w < 0 && errno != EINTR) return r;
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (elapsed > spec.timeout_s && !r.timed_out)
      {
         r.timed_out = true;
         kill(-pid, SIGKILL);
      }
      usleep(2000);
   }
   r.seconds     = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
   r.max_rss_kib = ru.ru_maxrss;
   if (WIFEXITED(status))
   {
      r.exited    = true;
      r.exit_code = WEXITSTATUS(status);
   }
   if (WIFSIGNALED(status))
   {
      r.signaled    = true;
      r.term_signal = WTERMSIG(status);
   }
   return r;
}

// Whether this build has MPI (set by tests/reliability/CMakeLists.txt); tests that need
// mpirun skip without it.
#if defined(AMGT_TEST_WITH_MPI) && !AMGT_TEST_WITH_MPI
#define AMGT_REQUIRE_MPIRUN() GTEST_SKIP() << "built without MPI (AMGT_WITH_MPI=OFF): no mpirun"
#else
#define AMGT_REQUIRE_MPIRUN() \
   do { } while (0)
#endif

// mpirun as the driver tests use it: as root it needs --allow-run-as-root, and more ranks
// than cores need --oversubscribe (CI machines have 2 cores).
inline std::vector<std::string> mpirun_prefix(int np)
{
   std::vector<std::string> v = {"mpirun"};
   if (geteuid() == 0) v.push_back("--allow-run-as-root");
   v.push_back("--oversubscribe");
   v.push_back("-np");
   v.push_back(std::to_string(np));
   return v;
}

} // namespace amgt::test
