-- Lmod modulefile for memsuite (stream, stream_mpi, mbw, mencal and the
-- memsuite command).
--
-- make install puts it at PREFIX/share/modulefiles/memsuite/VERSION.lua;
-- the prefix is taken from this file's own path, so the same file serves
-- any PREFIX (a centre's /opt/apps/memsuite/0.1.0, or /usr from the
-- packages):
--   module use PREFIX/share/modulefiles
--   module load memsuite
-- load puts PREFIX/lib/memsuite/bin (stream, mbw, mencal, stream_mpi under
-- their own names: drop-in STREAM and mbw) and PREFIX/bin (memsuite,
-- memsuite-TOOL) first on PATH, and their pages on MANPATH; unload takes
-- them away again.  Without the module only the memsuite-TOOL names are on
-- PATH, so ImageMagick's stream and Debian's mbw keep theirs.

local file = myFileName()
local root = file:match("^(.*)/share/modulefiles/memsuite/[^/]+%.lua$")
if not root then
    LmodError("memsuite: this modulefile must sit at PREFIX/share/modulefiles/memsuite/VERSION.lua, not " .. file)
end

whatis("Name: memsuite")
whatis("Version: " .. myModuleVersion())
whatis("Description: memory benchmark suite: STREAM and mbw compatible tools, latency and allocator scenarios, node validation")

help([[
memsuite: memory benchmarks and node validation.
Commands: stream, stream_mpi (when built with MPI), mbw, mencal, memsuite
(also as memsuite-stream, memsuite-mbw, ... without the module).
Start with: memsuite help; man memsuite.
]])

prepend_path("PATH", pathJoin(root, "bin"))
prepend_path("PATH", pathJoin(root, "lib/memsuite/bin"))
prepend_path("MANPATH", pathJoin(root, "share/man"))
prepend_path("MANPATH", pathJoin(root, "lib/memsuite/man"))
