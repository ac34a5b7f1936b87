package io.mdfanout.sdk;

/**
 * Test-only access to {@link MessageContext}'s package-private setters, so that a listener outside the SDK can be
 * driven with incremental and snapshot contexts one callback at a time, without whole packets to decode.
 */
public final class TestMessageContexts
{
    private TestMessageContexts()
    {
    }

    /**
     * Points a context at a message.
     *
     * @param context        the context to set.
     * @param partition      the partition.
     * @param sendingTime    the packet's sending time, epoch ns.
     * @param streamSequence the message's stream sequence.
     * @param templateId     the message's template id.
     * @param snapshot       whether it came from a snapshot.
     * @return the context.
     */
    public static MessageContext set(
        final MessageContext context,
        final int partition,
        final long sendingTime,
        final long streamSequence,
        final int templateId,
        final boolean snapshot)
    {
        if (snapshot)
        {
            context.snapshotPacket(partition, sendingTime);
        }
        else
        {
            context.packet(partition, sendingTime);
        }
        context.message(streamSequence, templateId);
        return context;
    }
}
