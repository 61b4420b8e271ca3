module entelect-go-reference

go 1.22
