module github.com/flopspack/flopspack/bindings/go

go 1.19
