#!/usr/bin/env bash
# Integration test of the Slurm profile (workflow/profiles/slurm) against a
# REAL one-node Slurm cluster started on this machine. See README.md here.
#
#  1. copies the pipeline three times (local / slurm / failing run), so that
#     no two runs can share outputs, and starts the local run at once,
#  2. installs Debian's slurm-wlm + munge if missing (apt-get, no recommends),
#  3. starts munged, slurmctld and slurmd with all their state, sockets, logs,
#     munge key and slurm.conf in one temporary directory (SLURM_CONF points
#     there; nothing under /etc is written), waits until sinfo shows the node idle,
#  4. runs the test configuration through the Slurm profile; checks that the
#     jobs went through Slurm, that every output exists (a dry run finds
#     nothing to do), that both runs made the same files, and that the tables
#     are byte-identical to the local run's (cmp),
#     that the Slurm jobs bundle the rule jobs (MIN_JOBS_PER_SLURM_JOB): a dry run
#     through the profile predicts the Slurm jobs, the run submits that many, at
#     most 1/MIN_JOBS_PER_SLURM_JOB of the rule jobs; the same dry run through the
#     profile without its group-components (the planted bug) must give more,
#  5. runs it once more on Slurm with a --config switch that makes one rule
#     fail, and checks that Snakemake exits non-zero naming that rule, with the
#     job's one-line error on its terminal,
#  6. always (trap): cancels its Slurm jobs, stops the daemons it started by
#     their recorded PIDs, and removes the temporary directory.
#
# Parameters (environment variables):
#   PIPELINE_DIR     the pipeline (default: repo root; relative = to the repo root)
#   PIPELINE_WORKDIR Snakemake's working directory (--directory), relative to
#                    PIPELINE_DIR (default: .test)
#   PIPELINE_CONFIG  config file, relative to PIPELINE_DIR (.test/config/config.yaml)
#   TABLES_GLOB      tables to compare, relative to PIPELINE_WORKDIR
#                    (results/*/tables/*.csv; ** allowed)
#   TARGETS          targets of the local and Slurm runs (default: none = default target)
#   FAIL_CONFIG      --config entry making one rule fail (fail_rule_for_testing=True;
#                    "=true" would give the *string* "true": Snakemake parses
#                    --config values with YAML's BaseLoader and only True/False as bool)
#   FAIL_RULE        rule that must be named as failed, or the start of its name
#                    (simulate: the pipeline's simulate_<experiment> rules)
#   FAIL_TARGETS     targets of the failing run (default: TARGETS)
#   FAIL_JOBS        --jobs of the failing run (1: one job fails, is retried,
#                    fails again, and Snakemake stops, however big the DAG)
#   FAIL_MESSAGE     the failing job's one-line error, which must reach Snakemake's
#                    terminal on the login node, not only the job's log (default:
#                    linbandits' simulate line for this repository, none otherwise)
#   SNAKEMAKE_ARGS   extra arguments for every run (default: none)
#   SLURM_EXTRA_ARGS extra arguments for the two Slurm runs only, e.g. to bundle
#                    many short jobs into fewer Slurm jobs:
#                    "--groups simulate_soare_sto=sim --group-components sim=20"
#   MIN_JOBS_PER_SLURM_JOB  rule jobs per Slurm job at least, on average (the
#                    profile's groups; default 3 for this repository, 0 = no check)
#   SLURM_PROFILE / LOCAL_PROFILE  profile dirs (workflow/profiles/{slurm,local} of the repo)
#   COPY_EXCLUDES    extra paths not copied (besides .git, .snakemake and what
#                    PIPELINE_DIR/.gitignore ignores)
#   BUDGET_SECONDS   hard time budget of the whole test (600)
#   KEEP_LOGS        a directory: copy the daemon and Snakemake logs there (debugging)
# Exit: 0 = PASS, non-zero = FAIL. When it cannot run at all (not root, no
# apt, ...) it prints one "SKIP:" line and exits 1 if CI=true, else 0.
set -euo pipefail

START=$SECONDS
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)

abs_from_repo() { case "$1" in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$REPO_ROOT/$1" ;; esac; }

# normalised (no trailing /.), so that the defaults below recognise this repository
PIPELINE_DIR=$(cd "$(abs_from_repo "${PIPELINE_DIR:-.}")" && pwd)
PIPELINE_WORKDIR=${PIPELINE_WORKDIR:-.test}
PIPELINE_CONFIG=${PIPELINE_CONFIG:-.test/config/config.yaml}
TABLES_GLOB=${TABLES_GLOB:-results/*/tables/*.csv}
TARGETS=${TARGETS:-}
FAIL_CONFIG=${FAIL_CONFIG:-fail_rule_for_testing=True}
FAIL_RULE=${FAIL_RULE:-simulate}
FAIL_TARGETS=${FAIL_TARGETS:-$TARGETS}
FAIL_JOBS=${FAIL_JOBS:-1}
if [[ -z "${FAIL_MESSAGE+set}" && "$PIPELINE_DIR" == "$REPO_ROOT" ]]; then # this repository's simulate jobs
  FAIL_MESSAGE="error: simulate failed on purpose (LINBANDITS_FAIL_FOR_TESTING is set)"
fi
FAIL_MESSAGE=${FAIL_MESSAGE:-}
if [[ -z "${MIN_JOBS_PER_SLURM_JOB+set}" && "$PIPELINE_DIR" == "$REPO_ROOT" ]]; then # its profile's groups
  MIN_JOBS_PER_SLURM_JOB=3
fi
MIN_JOBS_PER_SLURM_JOB=${MIN_JOBS_PER_SLURM_JOB:-0}
SNAKEMAKE_ARGS=${SNAKEMAKE_ARGS:-}
SLURM_EXTRA_ARGS=${SLURM_EXTRA_ARGS:-}
SLURM_PROFILE=$(abs_from_repo "${SLURM_PROFILE:-workflow/profiles/slurm}")
LOCAL_PROFILE=$(abs_from_repo "${LOCAL_PROFILE:-workflow/profiles/local}")
COPY_EXCLUDES=${COPY_EXCLUDES:-}
BUDGET_SECONDS=${BUDGET_SECONDS:-600}
KEEP_LOGS=${KEEP_LOGS:-}
TEARDOWN_RESERVE=20 # seconds of the budget kept for the teardown

log() { printf '[slurm-test %3ds] %s\n' "$((SECONDS - START))" "$*"; }

# ---- cannot run here: one line; non-zero only in CI ---------------------------
SKIPPED=""
skip() {
  SKIPPED=1
  echo "SKIP: Slurm integration test cannot run here: $*"
  if [[ "${CI:-}" == "true" ]]; then exit 1; fi
  exit 0
}

[[ $(id -u) -eq 0 ]] || skip "needs root (installs packages; runs munged, slurmctld, slurmd)"
[[ -f "$PIPELINE_DIR/$PIPELINE_CONFIG" ]] || skip "no config file $PIPELINE_DIR/$PIPELINE_CONFIG"
command -v snakemake >/dev/null || skip "snakemake is not on PATH"
python3 -c 'import snakemake_executor_plugin_slurm' 2>/dev/null \
  || skip "snakemake-executor-plugin-slurm is not installed (pip install snakemake-executor-plugin-slurm)"
for d in "$SLURM_PROFILE" "$LOCAL_PROFILE"; do
  [[ -f "$d/config.yaml" ]] || skip "no profile $d/config.yaml"
done
SLURM_BINS=(munged mungekey munge unmunge slurmctld slurmd sbatch squeue sinfo scontrol scancel srun)
missing_bins() { local b; for b in "${SLURM_BINS[@]}"; do command -v "$b" >/dev/null || echo "$b"; done; }
if [[ -n "$(missing_bins)" ]] && ! command -v apt-get >/dev/null; then
  skip "Slurm/munge are not installed and there is no apt-get to install them"
fi

# ---- state and teardown ---------------------------------------------------------
T=$(mktemp -d /tmp/linbandits-slurm-test.XXXXXX)
chmod 700 "$T"
mkdir -p "$T"/{munge,etc,state/ctld,state/slurmd,run,log,work,bin,tmp}
# Everything started from here on inherits this tag (daemons, slurmstepd, job
# processes): the teardown uses it to find strays of THIS run, and only those.
export LINBANDITS_SLURM_TEST_TAG="$T"
export SLURM_CONF="$T/etc/slurm.conf"
export TMPDIR="$T/tmp" # Snakemake's and the jobs' temporary files go too (sbatch --export=ALL)

MUNGED_PID="" SLURMCTLD_PID="" SLURMD_PID="" CREATED_POLICY_RC_D=""
declare -A RUN_PID=() # label -> pid of a background snakemake run
FAILURES=()
fail() { FAILURES+=("$*"); log "CHECK FAILED: $*"; }
die() { fail "$*"; exit 1; }
remaining() { # seconds left for work (at least 1: `timeout 0` would mean none)
  local r=$((BUDGET_SECONDS - TEARDOWN_RESERVE - (SECONDS - START)))
  echo $((r > 0 ? r : 1))
}

alive() { # is pid running? (a zombie counts as gone)
  [[ -n "$1" && -e /proc/$1 ]] || return 1
  local st
  st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ "$st" != Z ]]
}

stop_pid() { # name pid: SIGTERM, up to 10 s, then SIGKILL; reap
  local name=$1 pid=$2
  [[ -n "$pid" ]] || return 0
  if alive "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do alive "$pid" || break; sleep 0.2; done
    if alive "$pid"; then
      log "$name (pid $pid) ignored SIGTERM: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.2
    fi
  fi
  wait "$pid" 2>/dev/null || true
  log "stopped $name (pid $pid)"
}

tagged_pids() { # live processes carrying this run's tag, except this shell
  local p
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    [[ "$p" == "$$" || "$p" == "$BASHPID" ]] && continue
    env -u LINBANDITS_SLURM_TEST_TAG grep -qzx "LINBANDITS_SLURM_TEST_TAG=$T" "/proc/$p/environ" 2>/dev/null \
      && alive "$p" && echo "$p"
  done
  return 0
}

dump_logs() { # on failure, before the temporary directory goes
  local f
  for f in "$T"/log/*.log "$T"/log/*.out; do
    [[ -s "$f" ]] || continue
    echo "----- last lines of $(basename "$f") -----"
    tail -n 40 "$f"
  done
  # a few Slurm job logs of the runs that should have succeeded
  find "$T/work/local" "$T/work/slurm" -path '*/.snakemake/slurm_logs/*' -name '*.log' 2>/dev/null | head -n 3 \
    | while read -r f; do
      echo "----- last lines of Slurm job log ${f#"$T"/work/} -----"
      tail -n 30 "$f"
    done
}

cleanup() {
  local rc=$? strays=()
  set +eu
  trap - EXIT INT TERM
  if [[ -n "$SKIPPED" ]]; then log() { :; }; fi # the SKIP line says it all
  [[ -n "$MUNGED_PID$SLURMCTLD_PID$SLURMD_PID${RUN_PID[*]:-}" ]] && log "teardown"
  local label
  for label in "${!RUN_PID[@]}"; do stop_pid "$label run" "${RUN_PID[$label]}"; done
  if alive "$SLURMCTLD_PID"; then
    local ids=()
    mapfile -t ids < <(timeout 10 squeue -h -o %A 2>/dev/null)
    if [[ ${#ids[@]} -gt 0 ]]; then
      log "cancelling Slurm jobs still known: ${ids[*]}"
      timeout 10 scancel "${ids[@]}" 2>/dev/null
      for _ in $(seq 30); do
        [[ -z "$(timeout 5 squeue -h -t PD,R,CG -o %A 2>/dev/null)" ]] && break
        sleep 0.5
      done
    fi
  fi
  stop_pid slurmd "$SLURMD_PID"
  stop_pid slurmctld "$SLURMCTLD_PID"
  stop_pid munged "$MUNGED_PID"
  mapfile -t strays < <(tagged_pids)
  if [[ ${#strays[@]} -gt 0 ]]; then
    log "killing leftover processes of this run (job steps): ${strays[*]}"
    kill -KILL "${strays[@]}" 2>/dev/null
    sleep 0.5
  fi
  if [[ -n "$CREATED_POLICY_RC_D" ]]; then rm -f /usr/sbin/policy-rc.d; fi
  if [[ -n "$SKIPPED" ]]; then rm -rf "$T"; exit "$rc"; fi
  if [[ $rc -ne 0 || ${#FAILURES[@]} -gt 0 ]]; then dump_logs; fi
  if [[ -n "$KEEP_LOGS" ]]; then
    mkdir -p "$KEEP_LOGS" && cp -r "$T/log" "$KEEP_LOGS/" \
      && (cd "$T/work" && find . -path '*/.snakemake/slurm_logs/*' -name '*.log' -print0 \
        | tar --null -T - -cf - | tar -C "$KEEP_LOGS" -xf -) && log "logs kept in $KEEP_LOGS"
  fi
  rm -rf "$T"
  mapfile -t strays < <(tagged_pids)
  [[ ${#strays[@]} -eq 0 ]] || FAILURES+=("processes left behind: ${strays[*]}")
  [[ ! -e "$T" ]] || FAILURES+=("temporary directory $T left behind")
  local elapsed=$((SECONDS - START))
  echo "elapsed: ${elapsed} s (budget ${BUDGET_SECONDS} s)"
  if [[ $rc -eq 0 && ${#FAILURES[@]} -eq 0 ]]; then
    echo "PASS: Slurm integration test ($(basename "$PIPELINE_DIR"), ${elapsed} s)"
    exit 0
  fi
  local f
  for f in "${FAILURES[@]}"; do echo "  - $f"; done
  echo "FAIL: Slurm integration test (${#FAILURES[@]} failed checks$( ((rc != 0)) && echo ", exit $rc"), ${elapsed} s)"
  [[ $rc -ne 0 ]] && exit "$rc"
  exit 1
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT
trap 'log "terminated"; exit 143' TERM

# ---- 1. three copies of the pipeline; the local run starts at once --------------
copy_pipeline() { # dest: PIPELINE_DIR without .git, Snakemake state, ignored files
  local args=(--anchored --exclude=./.git --exclude=./.snakemake) line e
  if [[ -f "$PIPELINE_DIR/.gitignore" ]]; then
    while IFS= read -r line || [[ -n "$line" ]]; do
      line=${line%%#*}
      line=${line%"${line##*[![:space:]]}"}
      line=${line%/}
      [[ -z "$line" || "$line" == '!'* ]] && continue
      if [[ "$line" == /* ]]; then
        args+=(--anchored "--exclude=.$line")
      else
        args+=(--no-anchored "--exclude=$line")
      fi
    done <"$PIPELINE_DIR/.gitignore"
  fi
  for e in $COPY_EXCLUDES; do args+=(--anchored "--exclude=./${e#./}"); done
  mkdir -p "$1"
  tar -C "$PIPELINE_DIR" "${args[@]}" -cf - . | tar -C "$1" -xf -
}

LOCAL_WD="$T/work/local"
SLURM_WD="$T/work/slurm"
FAIL_WD="$T/work/fail"
for d in "$LOCAL_WD" "$SLURM_WD" "$FAIL_WD"; do copy_pipeline "$d"; done

# run in copy $1: the Snakefile is found from the copy's root, outputs go to
# its PIPELINE_WORKDIR
sm_common() { # copy -> common snakemake arguments
  printf '%s\0' --directory "$1/$PIPELINE_WORKDIR" --configfile "$1/$PIPELINE_CONFIG"
  local a
  for a in $SNAKEMAKE_ARGS; do printf '%s\0' "$a"; done
}
mapfile -d '' LOCAL_ARGS < <(sm_common "$LOCAL_WD")
mapfile -d '' SLURM_ARGS < <(sm_common "$SLURM_WD")
mapfile -d '' FAIL_ARGS < <(sm_common "$FAIL_WD")
read -r -a SLURM_EXTRA_ARR <<<"$SLURM_EXTRA_ARGS"
read -r -a TARGET_ARR <<<"$TARGETS"
read -r -a FAIL_TARGET_ARR <<<"$FAIL_TARGETS"

# The three runs go in the background, each under `timeout` within the budget,
# so that their waits overlap: the local run while Slurm is installed and
# started, the successful and the failing Slurm runs side by side.
start_run() { # label copy snakemake-args...: output in $T/log/snakemake-<label>.log
  local label=$1 wd=$2 budget
  shift 2
  budget=$(remaining)
  ((budget > 5)) || die "time budget used up before the $label run"
  log "$label run starts (background, timeout ${budget}s): snakemake $*"
  (cd "$wd" && exec timeout -k 5 "$budget" snakemake "$@") >"$T/log/snakemake-$label.log" 2>&1 &
  RUN_PID[$label]=$!
}
finish_run() { # label -> exit status of that run
  local rc=0
  wait "${RUN_PID[$1]}" || rc=$?
  unset "RUN_PID[$1]"
  if ((rc == 124 || rc == 137)); then fail "$1 run timed out"; fi
  log "$1 run finished, exit $rc"
  return "$rc"
}

# Targets go first: --configfile and --config take several values each.
start_run local "$LOCAL_WD" "${TARGET_ARR[@]}" --profile "$LOCAL_PROFILE" "${LOCAL_ARGS[@]}"

# ---- bundling: the Slurm jobs a dry run through the profile predicts ------------
# A dry run through the Slurm executor prints each Slurm job as one "Group job" line
# or one top-level "rule X:" block; a job without a command ("Shell command: None":
# the targets, the template rules) runs on the login node.
slurm_plan() { # profile -> "<jobs with a command> <Slurm jobs>" for the targets
  local out
  out=$(cd "$SLURM_WD" && timeout 120 snakemake "${TARGET_ARR[@]}" --dry-run --profile "$1" \
    "${SLURM_ARGS[@]}" "${SLURM_EXTRA_ARR[@]}" 2>&1) || { tail -n 20 <<<"$out" >&2; return 1; }
  awk '$1 == "total" && !total {total = $2}
    /\] Group job / {slurm++}
    /^(rule|checkpoint) / {single = 1}
    /^Shell command:/ {if ($0 == "Shell command: None") none++; else if (single) slurm++; single = 0}
    END {print total - none, slurm + 0}' <<<"$out"
}
RULE_JOBS="" PREDICTED_JOBS=""
if ((MIN_JOBS_PER_SLURM_JOB > 1)); then
  # the planted bug: the same profile without its group-components entries
  mkdir -p "$T/ungrouped-profile"
  awk '/^group-components:/ {skip = 1; next} skip && /^[[:space:]]+- / {next} {skip = 0; print}' \
    "$SLURM_PROFILE/config.yaml" >"$T/ungrouped-profile/config.yaml"
  cmp -s "$SLURM_PROFILE/config.yaml" "$T/ungrouped-profile/config.yaml" \
    && fail "the Slurm profile has no group-components: nothing bundles the rule jobs"
  plan=$(slurm_plan "$SLURM_PROFILE") || die "dry run through the Slurm profile failed"
  read -r RULE_JOBS PREDICTED_JOBS <<<"$plan"
  plan=$(slurm_plan "$T/ungrouped-profile") || die "dry run through the ungrouped profile failed"
  read -r _ UNGROUPED_JOBS <<<"$plan"
  log "dry runs: $RULE_JOBS rule jobs in $PREDICTED_JOBS Slurm jobs; $UNGROUPED_JOBS without group-components (planted)"
  ((PREDICTED_JOBS * MIN_JOBS_PER_SLURM_JOB <= RULE_JOBS)) \
    || fail "the Slurm profile bundles too little: $PREDICTED_JOBS Slurm jobs for $RULE_JOBS rule jobs (at most 1/$MIN_JOBS_PER_SLURM_JOB wanted)"
  ((UNGROUPED_JOBS * MIN_JOBS_PER_SLURM_JOB > RULE_JOBS && UNGROUPED_JOBS > PREDICTED_JOBS)) \
    || fail "the bundling check cannot fail: without group-components the profile gives $UNGROUPED_JOBS Slurm jobs for $RULE_JOBS rule jobs"
fi

# ---- 2. install -----------------------------------------------------------------
if [[ -n "$(missing_bins)" ]]; then
  log "installing slurm-wlm munge (apt-get install --no-install-recommends)"
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    # keep the packages' maintainer scripts from starting system daemons
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    CREATED_POLICY_RC_D=1
  fi
  apt_install() {
    DEBIAN_FRONTEND=noninteractive timeout "$(remaining)" \
      apt-get install -y --no-install-recommends slurm-wlm munge >>"$T/log/apt.out" 2>&1
  }
  if ! apt_install; then
    log "apt-get install failed: apt-get update, then again"
    timeout "$(remaining)" apt-get update >>"$T/log/apt.out" 2>&1 || true
    apt_install || skip "apt-get install slurm-wlm munge failed: $(tail -n 1 "$T/log/apt.out")"
  fi
  if [[ -n "$CREATED_POLICY_RC_D" ]]; then rm -f /usr/sbin/policy-rc.d; CREATED_POLICY_RC_D=""; fi
  [[ -z "$(missing_bins)" ]] || die "still missing after the install: $(missing_bins | tr '\n' ' ')"
  log "installed"
fi
log "$(slurmctld -V 2>&1 | head -n 1), $(munged --version 2>&1 | head -n 1 | awk '{print $1}'), $(python3 -c 'from importlib.metadata import version as v; print("snakemake", v("snakemake"), "+ snakemake-executor-plugin-slurm", v("snakemake-executor-plugin-slurm"))')"

# ---- 3. munge and the Slurm daemons ---------------------------------------------
# A private munge key, socket and log: nothing under /etc/munge is used.
mungekey --create --keyfile="$T/munge/munge.key" 2>/dev/null \
  || dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$T/munge/munge.key"
MUNGE_SOCKET="$T/munge/munge.socket"
munged --foreground --force \
  --key-file="$T/munge/munge.key" --socket="$MUNGE_SOCKET" \
  --pid-file="$T/munge/munged.pid" --log-file="$T/log/munged.log" \
  --seed-file="$T/munge/munged.seed" >"$T/log/munged.out" 2>&1 &
MUNGED_PID=$!
for _ in $(seq 50); do
  munge -n -S "$MUNGE_SOCKET" 2>/dev/null | unmunge -S "$MUNGE_SOCKET" >/dev/null 2>&1 && break
  alive "$MUNGED_PID" || die "munged exited at start"
  sleep 0.2
done
munge -n -S "$MUNGE_SOCKET" | unmunge -S "$MUNGE_SOCKET" >/dev/null || die "munged does not answer"
log "munged up (pid $MUNGED_PID)"

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
CTLD_PORT=""
for base in 6817 16817 26817 36817; do
  if port_free "$base" && port_free "$((base + 1))"; then CTLD_PORT=$base; break; fi
done
[[ -n "$CTLD_PORT" ]] || die "no free pair of ports for slurmctld/slurmd"
SLURMD_PORT=$((CTLD_PORT + 1))

NODE=$(hostname -s)
NCPUS=$(nproc)
MEM_MB=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo)
REAL_MEM=$((MEM_MB * 90 / 100)) # a bit under the machine's
cat >"$SLURM_CONF" <<EOF
# one-node test cluster, written by tests/cluster/slurm_integration.sh
ClusterName=linbandits-test
SlurmctldHost=${NODE}(127.0.0.1)
SlurmctldPort=${CTLD_PORT}
SlurmdPort=${SLURMD_PORT}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=${MUNGE_SOCKET}
StateSaveLocation=$T/state/ctld
SlurmdSpoolDir=$T/state/slurmd
SlurmctldPidFile=$T/run/slurmctld.pid
SlurmdPidFile=$T/run/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
# status checks with squeue see a finished job for MinJobAge seconds: keep it
# at least 3x the profile's slurm-init-seconds-before-status-checks
MinJobAge=300
DefMemPerCPU=1000
NodeName=${NODE} NodeAddr=127.0.0.1 CPUs=${NCPUS} RealMemory=${REAL_MEM} State=UNKNOWN
PartitionName=test Nodes=${NODE} Default=YES MaxTime=INFINITE State=UP
EOF

# Inside each job the jobstep plugin runs `srun` with every SLURM_* variable
# removed, SLURM_CONF included, so srun looks for /etc/slurm/slurm.conf (where
# a real cluster keeps it). Rather than write there, a wrapper first on PATH
# (sbatch --export=ALL hands PATH to the job) gives srun this cluster's config.
cat >"$T/bin/srun" <<EOF
#!/bin/sh
SLURM_CONF='$SLURM_CONF' exec '$(command -v srun)' "\$@"
EOF
chmod 755 "$T/bin/srun"
export PATH="$T/bin:$PATH"

slurmctld -D -f "$SLURM_CONF" >"$T/log/slurmctld.out" 2>&1 &
SLURMCTLD_PID=$!
slurmd -D -f "$SLURM_CONF" -N "$NODE" >"$T/log/slurmd.out" 2>&1 &
SLURMD_PID=$!
log "slurmctld (pid $SLURMCTLD_PID) and slurmd (pid $SLURMD_PID) started on ports $CTLD_PORT/$SLURMD_PORT; waiting for node $NODE to be idle"
state=""
for _ in $(seq 120); do
  alive "$SLURMCTLD_PID" || die "slurmctld exited at start"
  alive "$SLURMD_PID" || die "slurmd exited at start"
  state=$(timeout 5 sinfo -h -n "$NODE" -o %T 2>/dev/null || true)
  [[ "$state" == idle ]] && break
  sleep 0.25
done
[[ "$state" == idle ]] || die "node $NODE not idle after 30 s (state: '${state:-none}')"
log "cluster up: $(sinfo -h -o 'partition %P %a, %D node %T, %c CPUs, %m MB' | head -n 1)"

# ---- 4. Slurm run vs local run ----------------------------------------------------
table_list() { # workdir -> tables relative to it, sorted
  (cd "$1" && shopt -s nullglob globstar && for f in $TABLES_GLOB; do [[ -f "$f" ]] && echo "$f"; done | LC_ALL=C sort)
}
file_list() { # copy -> all files but Snakemake's own state and logs, sorted
  (cd "$1" && find . -name .snakemake -prune -o -type f -print | LC_ALL=C sort)
}

start_run slurm "$SLURM_WD" "${TARGET_ARR[@]}" --profile "$SLURM_PROFILE" "${SLURM_ARGS[@]}" "${SLURM_EXTRA_ARR[@]}"
start_run failing "$FAIL_WD" "${FAIL_TARGET_ARR[@]}" --profile "$SLURM_PROFILE" "${FAIL_ARGS[@]}" \
  "${SLURM_EXTRA_ARR[@]}" --jobs "$FAIL_JOBS" --config "$FAIL_CONFIG"

if ! finish_run local; then
  tail -n 30 "$T/log/snakemake-local.log"
  die "local run failed"
fi
if ! finish_run slurm; then
  tail -n 40 "$T/log/snakemake-slurm.log"
  die "Slurm run failed"
fi
n_jobs=$(grep -c 'submitted with SLURM jobid' "$T/log/snakemake-slurm.log" || true)
log "Slurm run done: $n_jobs jobs submitted to Slurm"
((n_jobs > 0)) || fail "the Slurm run submitted no job to Slurm"
if [[ -n "$PREDICTED_JOBS" ]]; then
  if ((n_jobs == PREDICTED_JOBS)); then
    log "bundled: $RULE_JOBS rule jobs in $n_jobs Slurm jobs, as the dry run predicted"
  else
    fail "the Slurm run submitted $n_jobs jobs, the dry run through the profile predicted $PREDICTED_JOBS"
  fi
fi

# every output exists: a dry run over the Slurm copy finds nothing to do
if (cd "$SLURM_WD" && timeout 120 snakemake "${TARGET_ARR[@]}" --dry-run --profile "$LOCAL_PROFILE" "${SLURM_ARGS[@]}") \
  >"$T/log/snakemake-dryrun.log" 2>&1 && grep -q 'Nothing to be done' "$T/log/snakemake-dryrun.log"; then
  log "every output present: a dry run over the Slurm run's copy has nothing to do"
else
  tail -n 20 "$T/log/snakemake-dryrun.log"
  fail "outputs missing or out of date after the Slurm run"
fi
# same files made by both runs
if diff <(file_list "$LOCAL_WD") <(file_list "$SLURM_WD") >"$T/log/filelist.diff"; then
  log "both runs made the same $(file_list "$SLURM_WD" | wc -l) files (outside .snakemake/)"
else
  head -n 20 "$T/log/filelist.diff"
  fail "the local and the Slurm run made different sets of files"
fi
# tables byte-identical
mapfile -t TABLES < <(table_list "$LOCAL_WD/$PIPELINE_WORKDIR")
if [[ ${#TABLES[@]} -eq 0 ]]; then
  fail "no table matches '$TABLES_GLOB' in $PIPELINE_WORKDIR after the local run"
else
  n_same=0
  for t in "${TABLES[@]}"; do
    a="$LOCAL_WD/$PIPELINE_WORKDIR/$t" b="$SLURM_WD/$PIPELINE_WORKDIR/$t"
    if [[ ! -f "$b" ]]; then
      fail "table $t missing after the Slurm run"
    elif cmp -s "$a" "$b"; then
      n_same=$((n_same + 1))
    else
      fail "table $t differs between the local and the Slurm run: $(cmp "$a" "$b" 2>&1 | head -n 1)"
    fi
  done
  extra=$(comm -13 <(printf '%s\n' "${TABLES[@]}") <(table_list "$SLURM_WD/$PIPELINE_WORKDIR"))
  [[ -z "$extra" ]] || fail "tables made only by the Slurm run: ${extra//$'\n'/ }"
  log "$n_same of ${#TABLES[@]} tables byte-identical (cmp): ${TABLES[*]}"
fi

# ---- 5. a failing job is reported as failed -----------------------------------------
rc=0
finish_run failing || rc=$?
if ((rc == 0)); then
  fail "Snakemake exited 0 although --config $FAIL_CONFIG makes rule $FAIL_RULE fail"
elif ((rc == 124 || rc == 137)); then
  : # reported as a timeout
elif ! grep -Eq "Error in rule ${FAIL_RULE}[A-Za-z0-9_]*:" "$T/log/snakemake-failing.log"; then
  tail -n 30 "$T/log/snakemake-failing.log"
  fail "Snakemake exited $rc but did not name rule $FAIL_RULE as failed"
elif ! grep -q 'submitted with SLURM jobid' "$T/log/snakemake-failing.log"; then
  fail "the failing run did not go through Slurm"
elif [[ -n "$FAIL_MESSAGE" ]] && ! grep -qF "$FAIL_MESSAGE" "$T/log/snakemake-failing.log"; then
  tail -n 30 "$T/log/snakemake-failing.log"
  fail "the failing job's one-line error ($FAIL_MESSAGE) did not reach Snakemake's terminal"
else
  log "failing run: exit $rc; Snakemake reports \"Error in rule ${FAIL_RULE}...:\" $(grep -Ec "Error in rule ${FAIL_RULE}[A-Za-z0-9_]*:" "$T/log/snakemake-failing.log") times: $(grep -m1 -o "SLURM-job '[0-9]*' failed, SLURM status is: '[A-Z_]*'" "$T/log/snakemake-failing.log" || true)"
fi
# the verdict (PASS/FAIL) is printed by cleanup
