# Build the Windows one-folder bundle and its zip, then self-test it. UNTESTED: written to
# mirror packaging/build.sh, which is the one that runs (on Linux). Needs Python 3.11+ from
# python.org and the MSVC Build Tools (hnswlib compiles from source).
#
#   powershell -ExecutionPolicy Bypass -File packaging\build.ps1
#
# Output: dist\Flashback-<version>-windows-<arch>.zip holding Flashback\Flashback.exe (the
# window app) and Flashback\flashback-cli.exe (the command line: import, search, --self-test).
param([string]$Python = "py -3.11")

$ErrorActionPreference = "Stop"
$Root = Split-Path -Parent $PSScriptRoot
$Build = Join-Path $Root "build\packaging"
$Venv = Join-Path $Build "venv"
$Py = Join-Path $Venv "Scripts\python.exe"

function Invoke-Checked([string]$What, [scriptblock]$Command) {
    Write-Host "== $What"
    & $Command
    if ($LASTEXITCODE -ne 0) { throw "$What failed (exit code $LASTEXITCODE)" }
}

Remove-Item -Recurse -Force -ErrorAction SilentlyContinue $Venv, (Join-Path $Build "work"), (Join-Path $Build "dist")
New-Item -ItemType Directory -Force $Build, (Join-Path $Root "dist") | Out-Null

Invoke-Checked "fresh build venv" { Invoke-Expression "$Python -m venv `"$Venv`"" }
Invoke-Checked "pip" { & $Py -m pip install -q --upgrade pip }
$env:HNSWLIB_NO_NATIVE = "1"  # only GCC/Clang builds add -march=native; harmless for MSVC
Invoke-Checked "hnswlib from source" { & $Py -m pip install --no-binary hnswlib --no-cache-dir hnswlib }
Invoke-Checked "the project, non-editable" { & $Py -m pip install -q $Root }
Invoke-Checked "PyInstaller" { & $Py -m pip install -q "pyinstaller>=6.22,<6.23" }

# From the build folder, so the checkout's packages cannot shadow the installed ones.
Push-Location $Build
try {
    Invoke-Checked "bundle" {
        & $Py -m PyInstaller --noconfirm --log-level WARN --distpath (Join-Path $Build "dist") `
            --workpath (Join-Path $Build "work") (Join-Path $Root "packaging\flashback.spec")
    }
} finally { Pop-Location }

$Version = & $Py -c "from importlib.metadata import version; print(version('flashback'))"
$Arch = if ([Environment]::Is64BitOperatingSystem) { "x86_64" } else { "x86" }
$Zip = Join-Path $Root "dist\Flashback-$Version-windows-$Arch.zip"
Compress-Archive -Force -Path (Join-Path $Build "dist\Flashback") -DestinationPath $Zip

$Cli = Join-Path $Build "dist\Flashback\flashback-cli.exe"
$env:QT_QPA_PLATFORM = "offscreen"
Push-Location $env:TEMP
try {
    Invoke-Checked "bundle --version" { & $Cli --version }
    $Seconds = (Measure-Command { & $Cli --self-test | Out-Host }).TotalSeconds
    if ($LASTEXITCODE -ne 0) { throw "the bundle's self-test failed" }
    Write-Host ("self-test: {0:N2} s" -f $Seconds)
} finally { Pop-Location }
Write-Host "built $Zip"
