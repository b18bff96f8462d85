# cmake -DLIB=FILE -P rpath-remove.cmake: drop FILE's RPATH/RUNPATH.
file(RPATH_REMOVE FILE "${LIB}")
