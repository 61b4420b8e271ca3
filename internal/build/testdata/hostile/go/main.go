package main

//go:generate sh hostile.sh

func main() { println("bot") }
