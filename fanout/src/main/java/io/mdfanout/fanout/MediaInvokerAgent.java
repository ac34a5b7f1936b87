package io.mdfanout.fanout;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentInvoker;

/**
 * One duty cycle of the embedded media driver and of the Aeron client's conductor, as an agent of the
 * publisher thread ({@code --driver-threading invoker}): the fanout then runs on one busy thread, and
 * a packet offered by a partition is sent in the same duty cycle rather than after a hand-off to the
 * driver's thread. Both invokers are started by their owners (the driver and the client).
 */
final class MediaInvokerAgent implements Agent
{
    private final AgentInvoker driverInvoker;
    private final AgentInvoker clientInvoker;

    MediaInvokerAgent(final AgentInvoker driverInvoker, final AgentInvoker clientInvoker)
    {
        this.driverInvoker = driverInvoker;
        this.clientInvoker = clientInvoker;
    }

    public int doWork()
    {
        return driverInvoker.invoke() + clientInvoker.invoke();
    }

    public String roleName()
    {
        return "media-invoker";
    }
}
