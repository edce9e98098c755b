#!/usr/bin/env node
/**
 * The `transitkit` command (package.json `bin`): `transitkit server --dev`,
 * the client commands `transitkit encrypt|decrypt --key NAME` that stream
 * stdin (or `--in`) through a server to stdout (or `--out`), stream-command.ts,
 * and `transitkit inspect [FILE...]`, which reads envelope headers locally
 * (inspect-command.ts).
 *
 * `server` signals, handled from the start of the command (before the config
 * is read or storage connects), by one set of handlers whose meaning follows
 * the phase (see `serve` below), so no signal falls between two sets:
 * - SIGTERM and SIGINT, once running: drain in-flight requests, close
 *   storage, exit 0. During start-up: stop it at once (a storage that does not
 *   answer is not waited for), close what it opened, print no secret, exit 0
 *   (1 if the node or storage did not close within server.ts
 *   `STOP_DEADLINE_MS`). A second signal while stopping exits 1 at once.
 * - SIGHUP, once running (and while draining): reopen the audit files after a
 *   log rotation. During start-up it is deferred: the files are reopened once
 *   the server runs (a rotation may have moved a file start-up opened). Never a kill.
 *
 * Usage errors exit 2 (so does no command at all, after the help), start-up
 * failures 1. Options the command line leaves
 * out come from `TRANSITKIT_<OPTION>` variables (args.ts `applyEnv`).
 * No top-level await, so the same source also builds as CommonJS.
 * @module
 */
import { version } from '../../package.json';
import { helpText, parseArgs, type ServerArgs, UsageError } from './args.js';
import { runInspect } from './inspect-command.js';
import { type RunningServer, startServer } from './server.js';
import { STOP_DEADLINE_MS, StartupStopped } from './startup-stop.js';
import { runStreamCommand } from './stream-command.js';

async function main(argv: readonly string[]): Promise<void> {
  const command = parseArgs(argv, process.env);
  if (command.kind === 'help') {
    process.stdout.write(helpText());
    return;
  }
  if (command.kind === 'version') {
    process.stdout.write(`transitkit ${version}\n`);
    return;
  }
  if (command.kind === 'inspect') {
    const { stdin, stdout, stderr } = process;
    process.exitCode = await runInspect(command.files, { stdin, stdout, stderr });
    return;
  }
  if (command.kind === 'stream') {
    const { stdin, stdout, stderr } = process;
    await runStreamCommand(command.args, { stdin, stdout, stderr });
    return;
  }
  await serve(command.args);
}

/**
 * `transitkit server`. The signal handlers are installed before anything
 * else and stay to the exit; `phase` decides what a signal does. Signals are
 * events of the loop, so the phase can only change between them: a signal is
 * handled once, by the phase it finds (`starting` aborts start-up; a stop
 * that start-up finished before seeing is drained as soon as it returns).
 */
async function serve(args: ServerArgs): Promise<void> {
  // A closed stdout (`transitkit server | head`) must not crash the server
  // mid-request: its lines are for a reader that has gone, and an audit
  // device on stdout sees the failure through its own write callbacks.
  process.stdout.on('error', () => undefined);
  const startup = new AbortController();
  let phase: 'starting' | 'running' | 'stopping' = 'starting';
  let running: RunningServer | undefined;
  let stopSignal: NodeJS.Signals | undefined;
  let hupDeferred = false;
  const drain = (server: RunningServer, signal: NodeJS.Signals) => {
    process.stdout.write(`==> ${signal}: draining in-flight requests\n`);
    server.close().then(
      () => process.exit(0),
      (e: unknown) => {
        console.error('transitkit: error while shutting down:', e);
        process.exit(1);
      },
    );
  };
  const stop = (signal: NodeJS.Signals) => {
    if (phase === 'stopping') process.exit(1);
    const was = phase;
    phase = 'stopping';
    stopSignal = signal;
    if (was === 'running' && running) drain(running, signal);
    // Starting: startServer rejects with StartupStopped once it has closed what it opened.
    else startup.abort();
  };
  const hup = () => {
    if (running) running.reopenAudit();
    else if (phase === 'starting') hupDeferred = true;
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', hup);
  try {
    running = await startServer(args, (line) => process.stdout.write(`${line}\n`), version, {
      signal: startup.signal,
    });
  } catch (e) {
    if (!(e instanceof StartupStopped)) throw e;
    process.stdout.write(`==> ${stopSignal}: start-up stopped\n`);
    if (e.unshown !== undefined) {
      process.stderr.write(
        `transitkit: start-up was stopped after it initialised the store; its ${e.unshown} (shown once) was not printed; the store holds nothing else yet: remove it and start again\n`,
      );
    }
    if (!e.clean) {
      process.stderr.write(
        `transitkit: the node or storage did not close within ${STOP_DEADLINE_MS} ms; exiting without them\n`,
      );
    }
    process.exit(e.clean ? 0 : 1);
  }
  if (startup.signal.aborted) {
    // Stopped after start-up's last check (it ran to the end): drain what it started.
    drain(running, stopSignal as NodeJS.Signals);
    return;
  }
  phase = 'running';
  if (hupDeferred) running.reopenAudit();
}

main(process.argv.slice(2)).catch((e: unknown) => {
  if (e instanceof UsageError) {
    process.stderr.write(`transitkit: ${e.message}\n\n${helpText()}`);
    process.exit(2);
  }
  const message = e instanceof Error ? e.message : String(e);
  process.stderr.write(`transitkit: ${message}\n`);
  process.exit(1);
});
