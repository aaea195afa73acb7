# fish completion for svc (printed by `svc completion fish`).
#
# The words of the command line reach `svc complete` as separate arguments, never through eval:
# a Tab runs no command substitution, redirection or glob that the line holds.

function __svc_complete
    # The words before the cursor, as fish reads them (quotes removed, nothing expanded), and the
    # token being completed, with its quotes removed the same way.
    set -l typed (commandline -opc)[2..-1]
    set -l current (commandline -ct | string unescape)
    # --connections=4: svc offers the values alone; fish completes the whole token.
    set -l flag (string match --regex -- '^-[^=]*=' "$current")
    for line in (svc complete -- $typed "$current" 2>/dev/null)
        # svc prints "value<TAB>description" lines (fish's own format), then a directive line (":4").
        string match --quiet --regex -- '^:\d+$' $line; and continue
        printf '%s\n' "$flag$line"
    end
end

complete --command svc --erase
complete --command svc --no-files --arguments '(__svc_complete)'
