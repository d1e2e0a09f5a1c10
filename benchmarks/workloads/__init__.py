"""The workloads of the benchmark, in table order."""

from . import elementwise, f4, gmm, gp, logreg, mlp, neural_ode, rnn, speelpenning, while_loop


def all_workloads(quick=False):
    return (f4.WORKLOADS + speelpenning.workloads(quick) + while_loop.WORKLOADS + mlp.WORKLOADS
            + rnn.WORKLOADS + elementwise.WORKLOADS + logreg.WORKLOADS + gmm.WORKLOADS
            + neural_ode.WORKLOADS + gp.WORKLOADS)
