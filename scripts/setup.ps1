# Sets up tapsolve on Windows: tesseract and Python with winget when missing, then a virtualenv in
# .venv. `scripts\setup.ps1` for using it; `scripts\setup.ps1 -Test` adds what the test suite needs.
# Run it from PowerShell as: powershell -ExecutionPolicy Bypass -File scripts\setup.ps1
# (Linux and macOS: scripts/setup.)
param([switch]$Test)
$ErrorActionPreference = "Stop"
Set-Location (Split-Path -Parent $PSScriptRoot)

function Install-WithWinget($id, $what) {
    if (-not (Get-Command winget -ErrorAction SilentlyContinue)) {
        throw "$what is missing, and installing it needs winget (App Installer, from the Microsoft Store): install one of them, then run again"
    }
    Write-Host "installing $what (winget install $id)"
    winget install --id $id --exact --accept-source-agreements --accept-package-agreements
    if ($LASTEXITCODE -ne 0) { throw "winget could not install $what (exit code $LASTEXITCODE)" }
}

# tesseract: the UB Mannheim build. Its installer leaves it off the PATH; tapsolve looks for it in
# its folder (vision/tesseract.py, install_places)
$tesseract = Join-Path $env:ProgramFiles "Tesseract-OCR\tesseract.exe"
if (-not (Get-Command tesseract -ErrorAction SilentlyContinue) -and -not (Test-Path $tesseract)) {
    Install-WithWinget "UB-Mannheim.TesseractOCR" "tesseract"
}

# Python 3.11 or newer, through the py launcher python.org's installer puts in (for all users in
# the Windows folder, for one user in its Programs folder: a shell opened before it has no PATH to it)
function Find-Py {
    $found = Get-Command py -ErrorAction SilentlyContinue
    if ($found) { return $found.Source }
    foreach ($path in @("$env:WINDIR\py.exe", "$env:LOCALAPPDATA\Programs\Python\Launcher\py.exe")) {
        if (Test-Path $path) { return $path }
    }
    return $null
}
$py = Find-Py
$version = "-3"
$recent = $false
if ($py) {
    & $py $version -c "import sys; sys.exit(sys.version_info < (3, 11))"
    $recent = $LASTEXITCODE -eq 0
}
if (-not $recent) {
    Install-WithWinget "Python.Python.3.12" "Python 3.12"
    $py = Find-Py
    $version = "-3.12"
    if (-not $py) { throw "Python 3.12 is installed but its py launcher is not found yet: open a new PowerShell and run again" }
}

if (-not (Test-Path .venv\Scripts\python.exe)) {
    & $py $version -m venv .venv
    if ($LASTEXITCODE -ne 0) { throw "py $version -m venv .venv failed" }
}
$extra = if ($Test) { "[test]" } else { "" }
.venv\Scripts\python -m pip install -q --disable-pip-version-check -e ".$extra"
if ($LASTEXITCODE -ne 0) { throw "pip could not install tapsolve into .venv" }
# compile the solvers and build their tables now (a minute or two), not in the first game
.venv\Scripts\tapsolve warm
if ($LASTEXITCODE -ne 0) { throw "tapsolve warm failed (its last line says why)" }
Write-Host "tapsolve is set up in .venv: run .venv\Scripts\Activate.ps1 to put tapsolve on this shell's PATH (or run .venv\Scripts\tapsolve), then: tapsolve demo"
