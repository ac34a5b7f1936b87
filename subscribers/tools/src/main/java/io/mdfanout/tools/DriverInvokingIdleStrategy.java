package io.mdfanout.tools;

import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.IdleStrategy;

/**
 * Runs one duty cycle of an embedded media driver in invoker mode (and of the Aeron client's
 * conductor) on the poll thread, then idles
 * (or not) as the wrapped strategy does, counting the driver's work as the loop's own: the tool's
 * poll loop and its driver share one thread, which on a machine with few cores means one busy thread
 * fewer per subscriber process. Single-threaded, as the invoker is.
 */
final class DriverInvokingIdleStrategy implements IdleStrategy
{
    private final AgentInvoker driverInvoker;
    private final AgentInvoker clientInvoker;
    private final IdleStrategy idle;

    DriverInvokingIdleStrategy(final AgentInvoker driverInvoker, final AgentInvoker clientInvoker, final IdleStrategy idle)
    {
        this.driverInvoker = driverInvoker;
        this.clientInvoker = clientInvoker;
        this.idle = idle;
    }

    public void idle(final int workCount)
    {
        idle.idle(workCount + invoke());
    }

    public void idle()
    {
        if (0 == invoke())
        {
            idle.idle();
        }
    }

    private int invoke()
    {
        return driverInvoker.invoke() + (null == clientInvoker ? 0 : clientInvoker.invoke());
    }

    public void reset()
    {
        idle.reset();
    }

    public String alias()
    {
        return "driver-invoking " + idle.alias();
    }
}
