#pragma once
// A stop signal while kiln only asks tools questions (planning: the nvcc, Python and torch probes).
// Those children run in kiln's own process group, which a SIGTERM sent to kiln alone does not
// reach, and kiln would wait for them. After stop_children(sig) the plain child running gets the
// signal and no new child starts (ProcessRunner answers "not started"), so planning ends fast and
// kiln can say why. Children in their own process group (a build's tree) are io/interrupt's.
namespace kiln::io {

void stop_children(int sig);  // async-signal-safe: called by io/interrupt's handler while planning
void allow_children();        // children start again
int children_stopped();       // the signal that stopped them, 0 while children may start

// The stop signal io/interrupt's handler received for this build (0: none yet, or a new build).
// On a stop, the process runner leaves a step's leftovers to the stop's grace instead of SIGKILLing
// them when the step's tool ends (an srun cancelling its Slurm step). Async-signal-safe.
void note_build_stop(int sig);
int build_stop();

// For the process runner: the plain child running now (0: none). A child that started just as the
// stop came gets the signal here, so none slips between the check and the spawn.
void note_running_child(int pid);

}  // namespace kiln::io
