#!/usr/bin/env bash
# A single-node Slurm on this machine (controller and compute node on localhost), for running
# the pipeline through profiles/slurm where no cluster is at hand.
#
#   scripts/slurm-single-node.sh start    # install if absent, configure, start, wait for an idle node
#   scripts/slurm-single-node.sh status   # sinfo and the daemons' pids
#   scripts/slurm-single-node.sh stop     # stop the daemons this script started
#
# Needs root (it installs Debian's slurm-wlm and munge when absent and writes /etc/slurm/slurm.conf).
# No accounting database (sacct has nothing to query: use the squeue status command), no cgroups
# (proctrack/linuxproc, task/none): it runs inside a container. Running it again is harmless: a
# running daemon is left alone, and slurm.conf is rewritten only if this script wrote it.
# Environment: SLURM_WAIT (seconds to wait for the node, default 60).
set -euo pipefail

CONF=/etc/slurm/slurm.conf
MARK="# written by ltrconv scripts/slurm-single-node.sh"
RUN=/run/ltrconv-slurm
LOGDIR=/var/log/slurm
PARTITION=local
WAIT=${SLURM_WAIT:-60}

die() { echo "slurm-single-node: $*" >&2; exit 1; }
say() { echo "slurm-single-node: $*"; }

alive() {  # alive PIDFILE: the pid in PIDFILE is a running process
    [[ -s $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null
}

install_if_absent() {
    local missing=()
    for cmd in munged slurmctld slurmd sinfo sbatch squeue; do
        command -v "$cmd" >/dev/null || missing+=("$cmd")
    done
    [[ ${#missing[@]} -eq 0 ]] && return
    say "absent: ${missing[*]}; installing Debian's slurm-wlm and munge (apt-get)"
    command -v apt-get >/dev/null || die "no apt-get: install Slurm (slurmctld, slurmd, sinfo) and munge by hand"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null \
        || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null; } \
        || die "apt-get install slurm-wlm munge failed"
}

write_conf() {
    if [[ -e $CONF ]] && ! grep -qxF "$MARK" "$CONF"; then
        die "$CONF exists and was not written by this script; move it away or use that Slurm"
    fi
    local host cpus mem tmp
    host=$(hostname -s)
    cpus=$(nproc)
    # MemTotal in MiB, less 2% so that slurmd never finds less than configured (it drains the
    # node then, "Low RealMemory").
    mem=$(awk '/^MemTotal:/ {printf "%d", $2 / 1024 * 0.98}' /proc/meminfo)
    tmp=$(df -Pm /tmp | awk 'NR == 2 {print int($4 / 10240) * 10240}')  # MB, in 10 GiB steps: stable between runs
    [[ $cpus -ge 1 && $mem -ge 100 ]] || die "could not read CPUs ($cpus) or memory ($mem MB)"
    mkdir -p "$(dirname "$CONF")"
    local new
    new=$(mktemp "$CONF.XXXXXX")
    cat >"$new" <<EOF
$MARK
ClusterName=localhost
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
ReturnToService=2
# Finished jobs stay visible to squeue for 5 minutes (Snakemake's squeue status queries).
MinJobAge=300
SlurmdParameters=config_overrides
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd.pid
SlurmctldLogFile=$LOGDIR/slurmctld.log
SlurmdLogFile=$LOGDIR/slurmd.log
TmpFS=/tmp
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem TmpDisk=$tmp State=UNKNOWN
PartitionName=$PARTITION Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
    chmod 644 "$new"
    if cmp -s "$new" "$CONF"; then
        rm -f "$new"
        return
    fi
    mv "$new" "$CONF"
    if alive "$RUN/slurmctld.pid"; then
        scontrol reconfigure || die "scontrol reconfigure failed after rewriting $CONF"
    fi
    say "wrote $CONF: node $host, $cpus CPUs, $mem MB, partition '$PARTITION'"
}

start_munge() {
    alive /run/munge/munged.pid && return
    if [[ ! -s /etc/munge/munge.key ]]; then
        if command -v mungekey >/dev/null; then mungekey --create --keyfile=/etc/munge/munge.key
        else dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none; fi
    fi
    install -d -o munge -g munge -m 0755 /run/munge
    install -d -o munge -g munge -m 0700 /var/log/munge /var/lib/munge
    chown munge:munge /etc/munge/munge.key
    chmod 400 /etc/munge/munge.key
    runuser -u munge -- /usr/sbin/munged || die "munged did not start (see /var/log/munge/munged.log)"
    munge -n | unmunge >/dev/null || die "munge credentials do not verify"
    say "started munged"
}

start_daemon() {  # start_daemon NAME
    local name=$1
    if alive "$RUN/$name.pid"; then
        return
    fi
    "/usr/sbin/$name" || die "$name did not start (see $LOGDIR/$name.log)"
    say "started $name"
}

node_state() {
    sinfo -h -N -p "$PARTITION" -o %T 2>/dev/null | head -n 1
}

start() {
    [[ $(id -u) -eq 0 ]] || die "start needs root (it installs packages and writes $CONF)"
    install_if_absent
    write_conf
    mkdir -p "$RUN" "$LOGDIR" /var/spool/slurmctld /var/spool/slurmd
    start_munge
    start_daemon slurmctld
    start_daemon slurmd
    local state="" waited=0
    while (( waited < WAIT )); do
        state=$(node_state)
        case $state in
            idle|mixed|allocated) break ;;
            down*|drain*) scontrol update nodename="$(hostname -s)" state=resume 2>/dev/null || true ;;
        esac
        sleep 1
        waited=$((waited + 1))
    done
    case $state in
        idle|mixed|allocated) say "node $(hostname -s) is $state in partition '$PARTITION'" ;;
        *) die "node not idle after ${WAIT}s (state '${state:-none}'; see $LOGDIR/slurmctld.log, $LOGDIR/slurmd.log)" ;;
    esac
}

stop_pidfile() {  # stop_pidfile NAME PIDFILE: SIGTERM, then wait up to 20 s for the exit
    local pid n=0
    alive "$2" || return 1
    pid=$(cat "$2")
    kill "$pid"
    while kill -0 "$pid" 2>/dev/null; do
        (( n++ < 200 )) || die "$1 (pid $pid) still running 20 s after SIGTERM"
        sleep 0.1
    done
    say "stopped $1"
}

stop() {
    local any=0
    stop_pidfile slurmd "$RUN/slurmd.pid" && any=1
    stop_pidfile slurmctld "$RUN/slurmctld.pid" && any=1
    stop_pidfile munged /run/munge/munged.pid && any=1
    [[ $any -eq 1 ]] || say "nothing running"
}

status() {
    for name in slurmctld slurmd; do
        if alive "$RUN/$name.pid"; then say "$name running (pid $(cat "$RUN/$name.pid"))"
        else say "$name not running"; fi
    done
    command -v sinfo >/dev/null && sinfo || true
}

case ${1:-} in
    start) start ;;
    stop) stop ;;
    status) status ;;
    *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
