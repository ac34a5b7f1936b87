package io.mdfanout.cli;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Asks a role's {@code GET /ready} every 100 ms, as a kubelet's readiness probe does (more often), and keeps each
 * answer that differs from the one before other than in its numbers: {@code 200 ready}, {@code 503 not ready:
 * <reason>}, or {@code down} while nothing answers.
 */
final class ReadyProbe implements AutoCloseable
{
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    private final URI uri;
    private final List<String> answers = new ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;

    ReadyProbe(final int port)
    {
        uri = URI.create("http://127.0.0.1:" + port + "/ready");
        thread = new Thread(this::run, "ready-probe-" + port);
        thread.setDaemon(true);
        thread.start();
    }

    private void run()
    {
        while (running)
        {
            final String answer = ask();
            synchronized (answers)
            {
                if (answers.isEmpty() || !withoutNumbers(answers.get(answers.size() - 1)).equals(withoutNumbers(answer)))
                {
                    answers.add(answer);
                }
            }
            try
            {
                Thread.sleep(100);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
        }
    }

    private static String withoutNumbers(final String answer)
    {
        return answer.replaceAll("\\d+", "#");
    }

    /** One request now: {@code 200 ready}, {@code 503 not ready: ...} or {@code down}. */
    String ask()
    {
        try
        {
            final HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
            return response.statusCode() + " " + response.body().trim();
        }
        catch (final Exception ex)
        {
            return "down";
        }
    }

    /** The answers so far, each one that differed from the one before (other than in its numbers). */
    List<String> answers()
    {
        synchronized (answers)
        {
            return new ArrayList<>(answers);
        }
    }

    public void close() throws InterruptedException
    {
        running = false;
        thread.interrupt();
        thread.join(5_000);
    }
}
