using System.IO;
using System.Runtime.Serialization;
using System.Runtime.Serialization.Json;

namespace StarterBot
{
    // The parts of state.json this bot reads; unknown fields are ignored.
    [DataContract]
    public class GameState
    {
        [DataMember] public int Phase { get; set; }
        [DataMember] public int MapDimension { get; set; }
        [DataMember] public OpponentMap OpponentMap { get; set; }

        public static GameState Parse(byte[] json)
        {
            var serializer = new DataContractJsonSerializer(typeof(GameState));
            using (var stream = new MemoryStream(json))
            {
                return (GameState)serializer.ReadObject(stream);
            }
        }
    }

    [DataContract]
    public class OpponentMap
    {
        [DataMember] public OpponentCell[] Cells { get; set; }
    }

    [DataContract]
    public class OpponentCell
    {
        [DataMember] public int X { get; set; }
        [DataMember] public int Y { get; set; }
        [DataMember] public bool Damaged { get; set; }
        [DataMember] public bool Missed { get; set; }
    }
}
