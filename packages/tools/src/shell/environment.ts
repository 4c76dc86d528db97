// The session's environment. Nobody is at a keyboard: anything that would page, prompt or open
// an editor must either print and return or fail at once, never wait for input.

const NON_INTERACTIVE: Record<string, string> = {
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  MANPAGER: 'cat',
  SYSTEMD_PAGER: 'cat',
  // git fails with "terminal prompts disabled" instead of asking for a username; an askpass
  // helper inherited from a desktop session could otherwise pop up a dialog nobody answers.
  GIT_TERMINAL_PROMPT: '0',
  GIT_ASKPASS: 'false',
  SSH_ASKPASS: 'false',
  GCM_INTERACTIVE: 'never',
  GIT_SSH_COMMAND: 'ssh -o BatchMode=yes',
  // `git commit` without -m, `git merge`: take the default message instead of opening vi.
  GIT_EDITOR: 'true',
  EDITOR: 'true',
  VISUAL: 'true',
  DEBIAN_FRONTEND: 'noninteractive',
  TERM: 'dumb',
  NO_COLOR: '1',
  PIP_NO_INPUT: '1',
  // CI=true is deliberately not set: stdin is /dev/null, not a terminal, which already makes
  // tools non-interactive, while CI=true changes unrelated behaviour (warnings become errors in
  // some builds, test runners change reporters).
}

// Only these reach the session from the application's environment: the model's shell has no
// business seeing the application's API keys, tokens or database URLs. Anything else the
// application wants the session to have goes in `ShellOptions.env`.
const INHERITED = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR']

export function sessionEnvironment(
  extra: Record<string, string> | undefined,
  sandbox: boolean,
): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && (INHERITED.includes(key) || key.startsWith('LC_'))) env[key] = value
  }
  Object.assign(env, NON_INTERACTIVE)
  // Inside the sandbox only /tmp and the workspace are writable.
  if (sandbox) env.TMPDIR = '/tmp'
  Object.assign(env, extra ?? {})
  return env
}
