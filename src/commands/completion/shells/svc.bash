# bash completion for svc (printed by `svc completion bash`). It uses the bash-completion package's
# word splitting where it is loaded, and its own where it is not.
#
# The words of the command line reach `svc complete` as separate arguments, never through eval:
# a Tab runs no command substitution, redirection or glob that the line holds.

# Sets REPLY to the word with the quotes and backslashes the user typed removed, as bash would
# pass it to svc; nothing in it is expanded or run ($VAR, $(...), backquotes and * stay as typed).
__svc_unquote() {
    local word=$1 quote='' char next i
    REPLY=''
    for ((i = 0; i < ${#word}; i++)); do
        char=${word:i:1}
        if [[ $quote == "'" ]]; then
            if [[ $char == "'" ]]; then quote=''; else REPLY+=$char; fi
        elif [[ $char == "\\" ]]; then
            next=${word:i+1:1}
            ((++i))
            # Between double quotes a backslash escapes only " \ $ and a backquote: it stays before anything else.
            if [[ $quote && $next != [\"\\\$\`] ]]; then REPLY+="\\"; fi
            REPLY+=$next
        elif [[ $quote && $char == '"' ]]; then
            quote=''
        elif [[ ! $quote && ( $char == "'" || $char == '"' ) ]]; then
            quote=$char
        else
            REPLY+=$char
        fi
    done
}

# Without the bash-completion package: sets words, cword and cur as `_get_comp_words_by_ref -n =:`
# does, from the line up to the cursor split at blanks outside quotes (quotes kept, `=` and `:` not
# word breaks); the last word is the one being completed ("" after a blank).
__svc_words() {
    local line=${COMP_LINE:0:COMP_POINT} quote='' char word='' i
    words=()
    for ((i = 0; i < ${#line}; i++)); do
        char=${line:i:1}
        if [[ $quote == [\'\`] ]]; then
            word+=$char
            [[ $char == "$quote" ]] && quote=''
        elif [[ $quote ]]; then
            word+=$char
            if [[ $char == "\\" ]]; then ((++i)); word+=${line:i:1}
            elif [[ $char == '"' ]]; then quote=''; fi
        elif [[ $char == "\\" ]]; then
            ((++i))
            word+=$char${line:i:1}
        elif [[ $char == [[:blank:]] ]]; then
            [[ $word ]] && words+=("$word")
            word=''
        else
            [[ $char == [\"\'\`] ]] && quote=$char
            word+=$char
        fi
    done
    words+=("$word")
    cword=$((${#words[@]} - 1))
    cur=$word
}

__svc_complete() {
    local cur words cword word line i
    local -a typed=()
    # As gh and kubectl do: the package's function where it is loaded, else our own.
    if declare -F _get_comp_words_by_ref >/dev/null; then
        _get_comp_words_by_ref -n =: cur words cword
    else
        __svc_words
    fi
    for ((i = 1; i < cword; i++)); do
        word=${words[i]}
        # A redirection operator (>, >>, <, 2>&1 ...) and its file name are the shell's, not svc's.
        if [[ $word == *[\<\>]* && -z ${word//[<>&|]/} ]]; then
            ((++i))
            continue
        fi
        __svc_unquote "$word"
        typed+=("$REPLY")
    done
    # The word being completed, up to the cursor ("" after a space).
    __svc_unquote "$cur"
    typed+=("$REPLY")

    COMPREPLY=()
    while IFS= read -r line; do
        # svc prints "value<TAB>description" lines, then a directive line (":4") that changes nothing here.
        [[ $line =~ ^:[0-9]+$ ]] && continue
        COMPREPLY+=("${line%%$'\t'*}")
    done < <(svc complete -- "${typed[@]}" 2>/dev/null)
}

complete -F __svc_complete svc
