// Shell completion scripts (`agentrent completion bash|zsh|fish`), generated from the command table so
// they never fall behind it: command words, then each command's flags.
import { GLOBAL_OPTIONS, type Command } from "./cli.ts";
import { usageError } from "./errors.ts";

const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = (typeof SHELLS)[number];
export const isShell = (value: string | undefined): value is Shell => (SHELLS as readonly string[]).includes(value ?? "");

function flagsOf(command: Command, globals: string[]): string[] {
  return [...Object.keys(command.options ?? {}).map((name) => `--${name}`), ...globals];
}

export function completionScript(shell: Shell, commands: Command[], globals: string[]): string {
  const tops = [...new Set([...commands.map((c) => c.path.split(" ")[0]!), "help"])];
  const groups = new Map<string, string[]>();
  for (const c of commands) {
    const [group, sub] = c.path.split(" ");
    if (sub) groups.set(group!, [...(groups.get(group!) ?? []), sub]);
  }
  if (shell === "bash" || shell === "zsh") {
    const cases = commands.map((c) => `    "${c.path}") flags="${flagsOf(c, globals).join(" ")}" ;;`).join("\n");
    const subs = [...groups].map(([g, s]) => `    ${g}) words="${s.join(" ")}" ;;`).join("\n");
    const body = `_agentrent() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" first="\${COMP_WORDS[1]}" second="\${COMP_WORDS[2]}" words="" flags=""
  if [ "$COMP_CWORD" -eq 1 ]; then words="${tops.join(" ")}"
  elif [ "$COMP_CWORD" -eq 2 ]; then
    case "$first" in
${subs}
    help) words="${tops.join(" ")}" ;;
    completion) words="bash zsh fish" ;;
    esac
  fi
  case "$first $second" in
${cases}
  esac
  if [ -z "$flags" ]; then case "$first" in
${commands.filter((c) => !c.path.includes(" ")).map((c) => `    ${c.path}) flags="${flagsOf(c, globals).join(" ")}" ;;`).join("\n")}
  esac; fi
  if [[ "$cur" == -* ]]; then COMPREPLY=( $(compgen -W "$flags" -- "$cur") ); else COMPREPLY=( $(compgen -W "$words" -- "$cur") ); fi
}
complete -o default -F _agentrent agentrent`;
    return shell === "bash"
      ? `# agentrent completion for bash: add to ~/.bashrc\n#   source <(agentrent completion bash)\n${body}\n`
      : `# agentrent completion for zsh: add to ~/.zshrc\n#   source <(agentrent completion zsh)\nautoload -U +X bashcompinit && bashcompinit\n${body}\n`;
  }
  const lines = [
    "# agentrent completion for fish: agentrent completion fish > ~/.config/fish/completions/agentrent.fish",
    "complete -c agentrent -f",
    `complete -c agentrent -n "__fish_use_subcommand" -a "${tops.join(" ")}"`,
    ...[...groups].map(([g, s]) => `complete -c agentrent -n "__fish_seen_subcommand_from ${g}" -a "${s.join(" ")}"`),
    `complete -c agentrent -n "__fish_seen_subcommand_from completion" -a "bash zsh fish"`,
    ...commands.flatMap((c) => {
      const words = c.path.split(" ");
      const condition = `__fish_seen_subcommand_from ${words.at(-1)}`;
      return Object.keys(c.options ?? {}).map((name) => `complete -c agentrent -n "${condition}" -l ${name}`);
    }),
    ...globals.map((flag) => `complete -c agentrent -l ${flag.replace(/^--/, "")}`),
  ];
  return lines.join("\n") + "\n";
}

/** `agentrent completion <shell>`, over the whole command table (`all`, read when it runs). */
export function completionCommand(all: () => Command[]): Command {
  return {
    path: "completion",
    summary: "Print the shell completion script of bash, zsh or fish (commands, subcommands and their flags)",
    usage: "<bash|zsh|fish>",
    args: [1, 1],
    arguments: ["<shell>  bash, zsh or fish"],
    notes: ["Add the source line to ~/.bashrc (or ~/.zshrc) to keep it; fish reads it from its completions folder."],
    examples: ["source <(agentrent completion bash)", "agentrent completion zsh >> ~/.zshrc", "agentrent completion fish > ~/.config/fish/completions/agentrent.fish"],
    async run(ctx) {
      const shell = ctx.args[0];
      if (!isShell(shell)) throw usageError(`agentrent completion <bash|zsh|fish>: no completion for ${JSON.stringify(shell)}; for example: source <(agentrent completion bash).`);
      ctx.out.streams.stdout.write(completionScript(shell, all(), Object.keys(GLOBAL_OPTIONS).map((name) => `--${name}`)));
    },
  };
}
