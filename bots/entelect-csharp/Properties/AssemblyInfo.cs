using System.Reflection;

[assembly: AssemblyTitle("StarterBot")]
[assembly: AssemblyDescription("Entelect Challenge 2017 Battleships starter bot")]
[assembly: AssemblyVersion("1.0.0.0")]
