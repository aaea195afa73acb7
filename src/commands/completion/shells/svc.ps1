# powershell completion for svc (printed by `svc completion powershell`).
#
# The words of the command line reach `svc complete` as an argument array, never through
# Invoke-Expression: a Tab runs no subexpression, redirection or script block that the line holds.

Register-ArgumentCompleter -Native -CommandName svc -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    # A word as typed, with its quotes removed and nothing expanded ("$(...)" stays as typed).
    $wordValue = {
        param($element)
        if ($element -is [System.Management.Automation.Language.StringConstantExpressionAst] -or
            $element -is [System.Management.Automation.Language.ExpandableStringExpressionAst]) {
            $element.Value
        } else {
            $element.Extent.Text
        }
    }

    # The words before the cursor, then the one being completed ('' after a space). PowerShell
    # leaves redirections out of CommandElements.
    $typed = @()
    $current = ''
    foreach ($element in @($commandAst.CommandElements | Select-Object -Skip 1)) {
        if ($element.Extent.StartOffset -ge $cursorPosition) { break }
        if ($element.Extent.EndOffset -ge $cursorPosition) {
            $current = & $wordValue $element
            break
        }
        $typed += & $wordValue $element
    }
    # --connections=4: svc offers the values alone; the flag stays as typed.
    $flag = ''
    if ($current -match '^(-[^=]*=)') { $flag = $Matches[1] }
    # Windows PowerShell, and PowerShell with legacy argument passing, drop an empty argument to a
    # program; there '""' reaches svc as the empty word.
    if ($current -eq '' -and ($null -eq $PSNativeCommandArgumentPassing -or $PSNativeCommandArgumentPassing -eq 'Legacy')) {
        $current = '""'
    }

    # Never a batch file (npm's svc.cmd beside svc.ps1): cmd.exe would read & | < > in the words.
    $svc = Get-Command svc -CommandType @('ExternalScript', 'Application') -ErrorAction Ignore |
        Where-Object { $_.Extension -notin '.cmd', '.bat' } | Select-Object -First 1
    if (-not $svc) { return }

    $arguments = @('complete', '--') + $typed + @($current)
    foreach ($line in @(& $svc @arguments 2>$null)) {
        # svc prints "value<TAB>description" lines, then a directive line (":4") that changes nothing here.
        if ($line -match '^:\d+$') { continue }
        $value, $description = "$line" -split "`t", 2
        if (-not $description) { $description = $value }
        $text = $flag + $value
        # Inserted as one literal word: quoted when it holds anything PowerShell would read.
        if ($text -match '[\s''"`$@#;,(){}|<>&\u2018-\u201E]') {
            $text = "'" + ($text -replace '[''\u2018-\u201B]', '$0$0') + "'"
        }
        [System.Management.Automation.CompletionResult]::new($text, $value, 'ParameterValue', $description)
    }
}
